#!/bin/bash
# a07: s003 (roster: Alan Turing) writes classmates' names as one word (AdaLovelace, GraceHopper2) and ids/emails with a
# letter or digit attached (s001b, ghopper1) into a code line; batch --roster --class-report: the anonymised example keeps them
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
echo "=== root"; rm -rf /tmp/r82-a07-root; mkdir -p /tmp/r82-a07-root
root_grade batch "$H/class" --out /tmp/r82-a07-root/grades.csv --roster "$H/roster.csv" --no-perf --jobs 2 \
  --feedback /tmp/r82-a07-root/feedback --class-report --stubs /work/scratch22/exercises 2>&1 | tail -8
cat /tmp/r82-a07-root/grades.csv
python3 - /tmp/r82-a07-root <<'PY'
import json,sys; s=json.load(open(sys.argv[1]+"/class-report.json"))
for m in s.get("misconceptions",[]): print("example:", m.get("id"), m.get("example"))
PY
grep -o 'Never submitted[^<]*\|HYPERLINK[^<]*' /tmp/r82-a07-root/class-report.html | head
echo "=== uid 65534"; C=$(user_copy "$H/class" r82-a07-class); cp roster.csv /tmp/u65534/r82-a07-roster.csv; chown 65534 /tmp/u65534/r82-a07-roster.csv
rm -rf /tmp/u65534/r82-a07-out; mkdir -p /tmp/u65534/r82-a07-out; chown 65534 /tmp/u65534/r82-a07-out
user_grade batch "$C" --out /tmp/u65534/r82-a07-out/grades.csv --roster /tmp/u65534/r82-a07-roster.csv --no-perf --jobs 2 \
  --feedback /tmp/u65534/r82-a07-out/feedback --class-report --stubs /work/scratch22/exercises 2>&1 | tail -8
cat /tmp/u65534/r82-a07-out/grades.csv
python3 - /tmp/u65534/r82-a07-out <<'PY'
import json,sys; s=json.load(open(sys.argv[1]+"/class-report.json"))
for m in s.get("misconceptions",[]): print("example:", m.get("id"), m.get("example"))
PY
leftovers
