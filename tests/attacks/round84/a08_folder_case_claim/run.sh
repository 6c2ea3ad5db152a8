#!/bin/bash
# a08: class named by email (as some LMS exports name folders). Mallory names her folder ALICE@uni.edu (emails match
# in any case): two folders claim Alice. What happens to Alice's row (and to Mallory's)?
cd "$(dirname "$0")"; source /work/round84/lib.sh
SOL=/work/scratch22/solutions/exercise3_scaling.py
run_level() {
  W=$(mktemp -d /tmp/u65534/a08-XXXX)
  for f in alice@uni.edu bob@uni.edu ALICE@uni.edu; do mkdir -p "$W/class/$f"; cp $SOL "$W/class/$f/"; done
  printf 'student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Mallory Evil,mallory@uni.edu\n' > $W/roster.csv
  chown -R 65534:65534 $W
  args="batch $W/class --no-perf --roster $W/roster.csv --out $W/out/grades.csv"
  if [ $lvl = root ]; then root_grade $args 2>&1 | tail -2; else user_grade $args 2>&1 | tail -2; fi
  cut -d, -f1-5,16-18 $W/out/grades.csv; echo "message of 1001: $(python3 -c "import csv,sys; print([r['message'] for r in csv.DictReader(open(sys.argv[1])) if r['student_id']=='1001'][0])" $W/out/grades.csv)"
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
