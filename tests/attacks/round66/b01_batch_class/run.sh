#!/bin/bash
# a class of four graded by `lumen-grade batch --jobs 2 --no-perf --class-report` as root and as uid 65534
cd "$(dirname "$0")"; source /work/round66/lib.sh
rm -rf out-root; mkdir out-root
echo "=== root"; root_grade batch "$PWD/class" --out "$PWD/out-root/grades.csv" --jobs 2 --no-perf --class-report
cat out-root/grades.csv | cut -c1-200
U=$(user_copy "$PWD/class" r66-b01-class); mkdir -p /tmp/u65534/r66-b01-out; chown 65534:65534 /tmp/u65534/r66-b01-out
echo "=== uid 65534"; user_grade batch "$U" --out /tmp/u65534/r66-b01-out/grades.csv --jobs 2 --no-perf --class-report
cat /tmp/u65534/r66-b01-out/grades.csv | cut -c1-200
rm -rf out-user; cp -r /tmp/u65534/r66-b01-out out-user; rm -rf "$U" /tmp/u65534/r66-b01-out
leftovers
