#!/bin/bash
# batch --timeout 5 --student-timeout 20: "trick" has the N=6000 exercise3 (sub/) and the solution of exercise4;
# "control" has control/'s exercise3 (same size, linear) and the same exercise4
cd "$(dirname "$0")"; source /work/round59/lib.sh; H=$PWD
mk() { rm -rf $1; mkdir -p $1/trick $1/control; cp $H/sub/exercise3_scaling.py $1/trick/; cp $H/control/exercise3_scaling.py $1/control/
       cp /work/scratch20/solutions/exercise4_masking.py $1/trick/; cp /work/scratch20/solutions/exercise4_masking.py $1/control/; }
echo "=== root"; W=/tmp/r59a03b; rm -rf $W; mk $W/class
(cd $W && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch class --out $W/grades.csv --no-perf -j 2 --timeout 5 --student-timeout 20); cut -d, -f1,2,5,6,13,18 $W/grades.csv
echo "=== uid 65534"; U=/tmp/u65534/r59a03b; rm -rf $U; mk $U/class; chown -R 65534:65534 $U
(cd $U && as_user env TMPDIR=$UT_TMP lumen-grade batch class --out $U/grades.csv --no-perf -j 2 --timeout 5 --student-timeout 20); cut -d, -f1,2,5,6,13,18 $U/grades.csv
leftovers
