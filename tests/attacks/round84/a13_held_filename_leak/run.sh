#!/bin/bash
# a13: does the class report (which anonymises) carry a name in the file name of a held exercise?
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a13-XXXX); python3 make.py $W; chown -R 65534:65534 $W
  G batch $W/class --no-perf --roster $W/roster.csv --out $W/out/grades.csv --class-report --stubs /work/scratch22/exercises 2>&1 | tail -2
  cut -d, -f1-5,15-16 $W/out/grades.csv
  for f in class-report.html class-report.json misconceptions.csv; do
    echo "$f: $(grep -o -i 'alice[^ <"]*' $W/out/$f | sort | uniq -c | tr '\n' ' ')"; done
  python3 -c "import json,sys; print('held_for_review:', json.load(open(sys.argv[1]))['held_for_review'])" $W/out/class-report.json
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
