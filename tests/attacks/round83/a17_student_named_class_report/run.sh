#!/bin/bash
# a17: students whose folders are named like the files `batch --class-report` writes beside the CSV
# (class-report.json, misconceptions.csv), in a class graded from inside the class folder with the default --out.
# Class: alice (exercise3 solution), class-report.json, misconceptions.csv (each with the solution too).
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
mkclass() { rm -rf "$1"; for s in alice class-report.json misconceptions.csv; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done; }
show() { echo "--- grades.csv"; cut -d, -f1,2,13,14 $1/grades.csv; echo "--- $1: $(ls -F $1 | tr '\n' ' ')"; }
echo "=================== root"
C=$RT_TMP/class; mkclass $C
(cd $C && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch . --class-report --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | grep -v "^  \|^Traceback\|^ *^" | tail -6); echo "[batch exit $?]"
show $C; rm -rf $C
echo "=================== uid 65534"
mkclass /tmp/r83a17; U=$(user_copy /tmp/r83a17 r83-a17-class); rm -rf /tmp/r83a17
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd $U && lumen-grade batch . --class-report --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | grep -v '^  \|^Traceback\|^ *^' | tail -6; echo [batch exit \$?]"
show $U; rm -rf $U
leftovers
