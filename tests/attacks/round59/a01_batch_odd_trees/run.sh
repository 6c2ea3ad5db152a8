#!/bin/bash
# batch-grade an odd class folder (exercise files only for ex3) as root and as uid 65534, then class-report
cd "$(dirname "$0")"; source /work/round59/lib.sh
echo "=== root"
W=/tmp/r59a01root; rm -rf $W; mkdir -p $W; ./build.sh $W/class
(cd $W && TMPDIR=$RT_TMP timeout 900 /opt/venv20/bin/lumen-grade batch class --out $W/grades.csv --no-perf -j 2 --timeout 20 --class-report); echo "[exit $?]"
cat $W/grades.csv | cut -c1-200
ls $W $W/grades | head -40
echo "=== uid 65534"
U=/tmp/u65534/r59a01; rm -rf $U; mkdir -p $U; ./build.sh $U/class; chown -R 65534:65534 $U; chmod 000 "$U/class/s08_unreadable_sub/locked"
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 900 lumen-grade batch $U/class --out $U/grades.csv --no-perf -j 2 --timeout 20 --class-report); echo "[exit $?]"
cat $U/grades.csv | cut -c1-200
ls $U $U/grades | head -40
leftovers
ls -d /tmp/lumen-batch-* /tmp/u65534/lumen-batch-* 2>/dev/null
