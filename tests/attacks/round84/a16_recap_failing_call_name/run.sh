#!/bin/bash
# a16: a classmate's name and email in the class report's "failing check" text of a misconception (not an example)
cd "$(dirname "$0")"; source /work/round84/lib.sh
G() { if [ $lvl = root ]; then root_grade "$@"; else user_grade "$@"; fi; }
run_level() {
  W=$(mktemp -d /tmp/u65534/a16-XXXX); python3 make.py $W; chown -R 65534:65534 $W
  G batch $W/class --no-perf --roster $W/roster.csv --out $W/out/grades.csv --class-report --stubs /work/scratch22/exercises 2>&1 | tail -2
  cut -d, -f1,5,14,16 $W/out/grades.csv
  python3 - $W/out <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/class-report.json"))
for m in s["misconceptions"]:
    print("misconception", m["id"], "failing_call:", (m.get("failing_call") or "")[:400])
for f in ("class-report.html", "class-report.json", "misconceptions.csv"):
    t = open(sys.argv[1] + "/" + f, encoding="utf-8").read()
    print(f, "contains 'Alice Smith':", "Alice Smith" in t, " 'alice@uni.edu':", "alice@uni.edu" in t)
PY
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
