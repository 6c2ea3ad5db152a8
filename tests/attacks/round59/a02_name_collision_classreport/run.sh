#!/bin/bash
# batch + class-report --similarity on a class where one folder's gradebook name is another folder's literal name
cd "$(dirname "$0")"; source /work/round59/lib.sh; H=$PWD
for mode in collide control; do
 echo "################ $mode"
 echo "=== root"
 W=/tmp/r59a02root-$mode; rm -rf $W; mkdir -p $W; $H/build.sh $W/class $mode
 (cd $W && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch class --out $W/grades.csv --no-perf -j 2 --timeout 20 >/dev/null 2>&1; echo "[batch exit $?]")
 cut -d, -f1,2,5,13 $W/grades.csv
 (cd $W && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade class-report grades --submissions class --stubs /work/scratch20/exercises --similarity; echo "[class-report exit $?]")
 python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('similarity:', json.dumps(s.get('similarity'), indent=1)[:1500])" $W/class-report.json
 echo "=== uid 65534"
 U=/tmp/u65534/r59a02-$mode; rm -rf $U; mkdir -p $U; $H/build.sh $U/class $mode; chown -R 65534:65534 $U
 (cd $U && as_user env TMPDIR=$UT_TMP lumen-grade batch class --out $U/grades.csv --no-perf -j 2 --timeout 20 >/dev/null 2>&1; echo "[batch exit $?]")
 cut -d, -f1,2,5,13 $U/grades.csv
 (cd $U && as_user env TMPDIR=$UT_TMP lumen-grade class-report grades --submissions class --stubs /work/scratch20/exercises --similarity; echo "[class-report exit $?]")
 python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('similarity:', json.dumps(s.get('similarity'), indent=1)[:1500])" $U/class-report.json
done
leftovers
