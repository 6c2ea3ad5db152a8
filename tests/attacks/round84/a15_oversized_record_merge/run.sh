#!/bin/bash
# a15: Mallory's 99 000 not-graded notebook copies make her record (grades/mallory.json) larger than the 33 MiB the
# kit reads back (MAX_RECORD_BYTES). Then: a sharded run (--shard 0/1) + merge, a resume of batch, class-report.
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a15-XXXX); python3 make.py $W ${N:-99000}; chown -R 65534:65534 $W
  echo "--- batch --shard 0/1"; G batch $W/class --no-perf --shard 0/1 --out $W/s0/grades.csv 2>&1 | tail -2 | cut -c1-300
  ls -l $W/s0/grades/mallory.json | awk '{print "record bytes:", $5}'
  echo "--- merge"; G merge $W/s0 --out $W/merged/grades.csv 2>&1 | tail -3 | cut -c1-400
  cut -d, -f1-2,13-15 $W/merged/grades.csv 2>&1 | cut -c1-200
  echo "--- class-report of the shard"; G class-report $W/s0/grades --out $W/rep 2>&1 | tail -2 | cut -c1-300
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print('students:', s['students'], 'errors:', str(s['errors'])[:300])" $W/rep/class-report.json
  echo "--- batch again (resume), unsharded output of the shard"; G batch $W/class --no-perf --shard 0/1 --out $W/s0/grades.csv 2>&1 | tail -2 | cut -c1-300
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
