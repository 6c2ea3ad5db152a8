#!/bin/bash
# a16: a student whose folder is named `grades.csv` (their exercise3 file inside), in a class graded from inside
# the class folder with the default --out grades.csv: the gradebook's own path is that student's folder.
# Class: alice, bob (exercise3 solution), grades.csv. `cd CLASS && lumen-grade batch .`, then the same again.
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
mkclass() { rm -rf "$1"; for s in alice bob grades.csv; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done; }
show() { echo "--- $1: $(ls -F $1 | tr '\n' ' ')"; [ -d $1/grades ] && echo "    grades/: $(ls $1/grades | tr '\n' ' ')"; }
echo "=================== root"
C=$RT_TMP/class; mkclass $C
for run in first again; do echo "------ $run"
(cd $C && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch . --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | grep -v "^  \|^Traceback\|^ *^" | tail -6); echo "[batch exit $?]"; done
show $C; rm -rf $C
echo "=================== uid 65534"
mkclass /tmp/r83a16; U=$(user_copy /tmp/r83a16 r83-a16-class); rm -rf /tmp/r83a16
for run in first again; do echo "------ $run"
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd $U && lumen-grade batch . --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | grep -v '^  \|^Traceback\|^ *^' | tail -6; echo [batch exit \$?]"; done
show $U; rm -rf $U
leftovers
