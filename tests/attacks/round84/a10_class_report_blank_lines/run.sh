#!/bin/bash
# a10: a 2 MB exercise file of blank lines: how long do batch and class-report take with it, and without it?
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a10-XXXX); python3 make.py $W; chown -R 65534:65534 $W
  s=$(date +%s.%N); G batch $W/class --no-perf --out $W/out/grades.csv 2>&1 | tail -3; e=$(date +%s.%N)
  echo "batch: $(echo "$e - $s" | bc) s"; cut -d, -f1-2,13-15 $W/out/grades.csv
  s=$(date +%s.%N); G class-report $W/out/grades --submissions $W/class --stubs /work/scratch22/exercises --out $W/rep 2>&1 | tail -2; e=$(date +%s.%N)
  echo "class-report with mallory: $(echo "$e - $s" | bc) s"
  python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps(s, default=str)[:0])" $W/rep/class-report.json
  rm -rf $W/class/mallory $W/out/grades/mallory.json
  s=$(date +%s.%N); G class-report $W/out/grades --submissions $W/class --stubs /work/scratch22/exercises --out $W/rep2 2>&1 | tail -1; e=$(date +%s.%N)
  echo "class-report without mallory: $(echo "$e - $s" | bc) s"
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
