#!/bin/bash
# a submission folder of 100 001 small files besides the (correct) exercise3_scaling.py; sub: 100 001 extra files,
# control: 10. Built in /tmp (not kept), graded with lumen-grade exercise3 and all, root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
build() { rm -rf $1; mkdir -p $1; cp /work/scratch20/solutions/exercise3_scaling.py $1/; python3 -c "
import os, sys
for i in range(int(sys.argv[2])): open(os.path.join(sys.argv[1], f'notes_{i}.txt'), 'w').close()" $1 $2; }
for s in sub control; do
  n=100001; [ $s = control ] && n=10
  echo "########## $s ($n extra files)"
  R=/tmp/r62-a06-$s; build $R $n
  echo "=== root exercise3"; root_grade exercise3 --submission $R --no-perf 2>&1 | tail -4
  echo "=== root all"; root_grade all --submission $R --no-perf 2>&1 | grep -E "exercise3 |Error|Traceback|more than|Total|exit" | head
  U=/tmp/u65534/r62-a06-$s; mv $R $U; chown -R 65534:65534 $U
  echo "=== uid 65534 exercise3"; user_grade exercise3 --submission $U --no-perf 2>&1 | tail -4
  rm -rf $U
done
leftovers
