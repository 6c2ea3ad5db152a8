#!/bin/bash
# a10: batch of a hostile class, as root and as uid 65534
cd /work/sec12-runs/a10
for who in root nobody; do
  W=/work/sec12-runs/a10/$who; rm -rf $W; mkdir -p $W/out; ./build.sh $W/class; chmod -R a+rwX $W
  cd /work/scratch-sec12
  if [ $who = root ]; then
    timeout 600 .venv-n/bin/python -m grader batch $W/class --out $W/out/grades.csv --jobs 1 --no-perf > $W/batch.out 2>&1; echo "rc $?" >> $W/batch.out
  else
    timeout 600 setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/h PATH=/usr/bin:/bin TMPDIR=/tmp/t .venv-n/bin/python -m grader batch $W/class --out $W/out/grades.csv --jobs 1 --no-perf > $W/batch.out 2>&1; echo "rc $?" >> $W/batch.out
  fi
  cd /work/sec12-runs/a10
  echo "== $who"; cat $W/batch.out | cut -c1-250; echo "-- csv"; cut -c1-200 $W/out/grades.csv; ls $W/out/grades | cut -c1-80
done
