#!/bin/bash
# reproduce: a class of 4 (honest, a01's socket takeover, a01's control with a newline in its folder name,
# a03's match-capture file in a folder named with U+202E) graded by `lumen-grade batch`, as root and as uid 65534
cd "$(dirname "$0")"; bash setup.sh; source /work/round30/lib.sh
rm -rf out-root; mkdir out-root
echo "=== root"; root_grade batch "$PWD/class" --out "$PWD/out-root/grades.csv" --no-perf --timeout 30 --feedback "$PWD/out-root/fb" --class-report
cat out-root/grades.csv | cat -A | cut -c1-200
echo "=== uid 65534"; U=$(user_copy "$PWD/class" class-a07); rm -rf /tmp/u65534/out-a07; as_user mkdir -p /tmp/u65534/out-a07
user_grade batch "$U" --out /tmp/u65534/out-a07/grades.csv --no-perf --timeout 30 --feedback /tmp/u65534/out-a07/fb --class-report
cat /tmp/u65534/out-a07/grades.csv | cat -A | cut -c1-200
leftovers
