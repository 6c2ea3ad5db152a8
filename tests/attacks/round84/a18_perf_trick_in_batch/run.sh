#!/bin/bash
# a18: a06's two files in a class run with performance tiers on (batch's default): what the gradebook's tier column says
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a18-XXXX); mkdir -p $W/class/trick $W/class/loop
  cp ../a06_perf_fast_at_timed_shape/sub/exercise3_scaling.py $W/class/trick/; cp ../a06_perf_fast_at_timed_shape/control/exercise3_scaling.py $W/class/loop/
  chown -R 65534:65534 $W
  G batch $W/class --out $W/out/grades.csv 2>&1 | tail -2
  python3 -c "
import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r['student'], r['status'], r['exercise3'], r['total'], repr(r['tier']))" $W/out/grades.csv
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
