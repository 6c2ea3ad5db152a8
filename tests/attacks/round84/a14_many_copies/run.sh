#!/bin/bash
# a14: N (default 20 000; N=99000 bash run.sh for the second run) not-graded copies of an exercise's notebook, with long names, in one student's folder
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a14-XXXX); python3 make.py $W ${N:-20000}; chown -R 65534:65534 $W
  s=$(date +%s.%N); G batch $W/class --no-perf --out $W/out/grades.csv --feedback $W/out/fb --class-report --stubs /work/scratch22/exercises 2>&1 | tail -2 | cut -c1-300; e=$(date +%s.%N)
  echo "batch: $(echo "$e - $s" | bc) s"
  ls -la $W/out/grades.csv $W/out/grades/ $W/out/fb/ $W/out/class-report.html | awk '{print $5, $9}'
  cut -d, -f1-2,13-15 $W/out/grades.csv | cut -c1-200
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
