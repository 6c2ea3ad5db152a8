#!/bin/bash
# honest: exercise 5 as a notebook two folders deep, graded by batch (all exercises) at both levels
cd "$(dirname "$0")"; source /work/round59/lib.sh
echo "=== root"; W=/tmp/r59h02; rm -rf $W; mkdir -p $W/class/stu; cp -r sub/hw $W/class/stu/
(cd $W && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch class --out $W/g.csv --no-perf) ; cut -d, -f1,2,7,13,17,18 $W/g.csv
echo "=== uid 65534"; U=/tmp/u65534/r59h02; rm -rf $U; mkdir -p $U/class/stu; cp -r sub/hw $U/class/stu/; chown -R 65534:65534 $U
(cd $U && as_user env TMPDIR=$UT_TMP lumen-grade batch class --out $U/g.csv --no-perf); cut -d, -f1,2,7,13,17,18 $U/g.csv
leftovers
