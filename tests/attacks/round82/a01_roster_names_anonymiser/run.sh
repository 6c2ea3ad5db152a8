#!/bin/bash
# a01: roster names/emails as students registered them (a name "Scale Scores", email torch@, a formula/script name):
# batch --roster --class-report --feedback at both levels; then look at the class report's anonymised example
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
echo "=== root"; rm -rf /tmp/r82-a01-root; mkdir -p /tmp/r82-a01-root
root_grade batch "$H/class" --out /tmp/r82-a01-root/grades.csv --roster "$H/roster.csv" --no-perf --jobs 2 \
  --feedback /tmp/r82-a01-root/feedback --class-report --stubs /work/scratch22/exercises 2>&1 | tail -8
cat /tmp/r82-a01-root/grades.csv
python3 - /tmp/r82-a01-root <<'PY'
import json,sys; s=json.load(open(sys.argv[1]+"/class-report.json"))
for m in s.get("misconceptions",[]): print("example:", m.get("id"), m.get("example"))
PY
grep -o 'Never submitted[^<]*\|HYPERLINK[^<]*' /tmp/r82-a01-root/class-report.html | head
echo "=== uid 65534"; C=$(user_copy "$H/class" r82-a01-class); cp roster.csv /tmp/u65534/r82-a01-roster.csv; chown 65534 /tmp/u65534/r82-a01-roster.csv
rm -rf /tmp/u65534/r82-a01-out; mkdir -p /tmp/u65534/r82-a01-out; chown 65534 /tmp/u65534/r82-a01-out
user_grade batch "$C" --out /tmp/u65534/r82-a01-out/grades.csv --roster /tmp/u65534/r82-a01-roster.csv --no-perf --jobs 2 \
  --feedback /tmp/u65534/r82-a01-out/feedback --class-report --stubs /work/scratch22/exercises 2>&1 | tail -8
cat /tmp/u65534/r82-a01-out/grades.csv
python3 - /tmp/u65534/r82-a01-out <<'PY'
import json,sys; s=json.load(open(sys.argv[1]+"/class-report.json"))
for m in s.get("misconceptions",[]): print("example:", m.get("id"), m.get("example"))
PY
leftovers
