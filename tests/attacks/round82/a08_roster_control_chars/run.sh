#!/bin/bash
# a08: a registered name holding U+202E (right-to-left override), ANSI escapes (ESC[2J ESC[31m) and a NUL:
# batch --roster --class-report, then class-report --names; what reaches grades.csv and the HTML?
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
rm -rf /tmp/r82-a08; mkdir -p /tmp/r82-a08
root_grade batch "$H/class" --out /tmp/r82-a08/grades.csv --roster "$H/roster.csv" --class-report --no-perf --jobs 2 --stubs /work/scratch22/exercises 2>&1 | tail -3
echo "grades.csv row of s001 (python repr):"; python3 -c "print([l for l in open('/tmp/r82-a08/grades.csv', newline='').read().splitlines() if l.startswith('s001')])"
root_grade class-report /tmp/r82-a08/grades.csv --roster "$H/roster.csv" --names --out /tmp/r82-a08/names 2>&1 | tail -2
python3 -c "import re; t=open('/tmp/r82-a08/names/class-report.html').read(); print('html has U+202E:', '\u202e' in t, '| ESC:', '\x1b' in t, '| NUL:', '\x00' in t); print([m for m in re.findall(r's001 [^<]*', t)][:2])"
C=$(user_copy "$H/class" r82-a08-class); cp roster.csv /tmp/u65534/r82-a08-roster.csv; rm -rf /tmp/u65534/r82-a08; mkdir -p /tmp/u65534/r82-a08; chown -R 65534 /tmp/u65534/r82-a08 /tmp/u65534/r82-a08-roster.csv
user_grade batch "$C" --out /tmp/u65534/r82-a08/grades.csv --roster /tmp/u65534/r82-a08-roster.csv --no-perf --jobs 2 2>&1 | tail -2
python3 -c "print([l for l in open('/tmp/u65534/r82-a08/grades.csv', newline='').read().splitlines() if l.startswith('s001')])"
leftovers
