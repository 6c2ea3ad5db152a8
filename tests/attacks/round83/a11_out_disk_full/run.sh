#!/bin/bash
# a11: where the gradebook goes has room for the class but not for one student's amplified outputs (a05's
# trudy, N=6000 misnamed files: ~3.4 MB on disk, mostly folder entries -> a 45 MB record + a 22 MB CSV).
# The batch's --out is a 48 MiB tmpfs (root mounts it, owned by the level's uid), -j 1: students in name order
# alice, bob, trudy, yan, zed. Does the batch record trudy's failure in her row and go on to yan and zed? Then the
# same batch again (resume). The traceback's frames are filtered out of the output (its last line is kept).
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-6000}
mkclass() { rm -rf "$1"; for s in alice bob yan zed; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done
  python3 gen_misnamed.py "$1/trudy" $N; }
D=/tmp/r83a11-out
mnt() { mkdir -p $D; mount -t tmpfs -o size=48m,uid=$1,gid=$1 tmpfs $D; }
show() { echo "--- $D: $(df -h $D | tail -1)"; ls -la $D $D/grades 2>&1 | awk '{print "  ", $5, $9}' | grep -v "^ *$";
  [ -f $D/grades.csv ] && cut -c1-80 $D/grades.csv | cut -d, -f1,2,13,14; }
echo "=================== root"
C=/tmp/r83a11-class; mkclass $C; mnt 0
for run in first resume; do echo "------ $run batch"
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out $D/grades.csv --no-perf --timeout 20 -j 1 2>&1 | cut -c1-200 | grep -v "^  \|^Traceback\|^ *^"); echo "[batch exit $?]"
show; done; umount $D
echo "=================== uid 65534"
U=$(user_copy $C r83-a11-class); rm -rf $C; mnt 65534
for run in first resume; do echo "------ $run batch"
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade batch $U --out $D/grades.csv --no-perf --timeout 20 -j 1 2>&1 | cut -c1-200 | grep -v '^  \|^Traceback\|^ *^'; echo [batch exit \$?]"
show; done; umount $D; rmdir $D
rm -rf $U
leftovers
