#!/bin/bash
# a06: a student folder named "class-report", graded with --feedback pointed at the gradebook's own folder
# (--out OUT/grades.csv --feedback OUT --class-report): whose page is OUT/class-report.html?
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
rm -rf /tmp/r82-a06; mkdir -p /tmp/r82-a06
root_grade batch "$H/class" --out /tmp/r82-a06/grades.csv --feedback /tmp/r82-a06 --class-report --no-perf --jobs 2 --stubs /work/scratch22/exercises 2>&1 | tail -4
ls /tmp/r82-a06; grep -o "<title>[^<]*</title>" /tmp/r82-a06/*.html
C=$(user_copy "$H/class" r82-a06-class); rm -rf /tmp/u65534/r82-a06; mkdir -p /tmp/u65534/r82-a06; chown 65534 /tmp/u65534/r82-a06
user_grade batch "$C" --out /tmp/u65534/r82-a06/grades.csv --feedback /tmp/u65534/r82-a06 --class-report --no-perf --jobs 2 --stubs /work/scratch22/exercises 2>&1 | tail -4
ls /tmp/u65534/r82-a06; grep -o "<title>[^<]*</title>" /tmp/u65534/r82-a06/*.html
leftovers
