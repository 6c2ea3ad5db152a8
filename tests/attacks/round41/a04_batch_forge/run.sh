#!/bin/bash
# batch: victim (the solution of exercise 1) and attacker (three products + enum.bltns forge); --no-perf, 2 jobs
cd "$(dirname "$0")"; source /work/round41/lib.sh
rm -rf out-root; mkdir -p out-root
echo "=== root"; root_grade batch "$PWD/class" --out "$PWD/out-root/grades.csv" --no-perf --jobs 2
cat out-root/grades.csv
U=$(user_copy "$PWD/class" r41-a04-class); rm -rf /tmp/u65534/r41-a04-out; mkdir -p /tmp/u65534/r41-a04-out; chown 65534:65534 /tmp/u65534/r41-a04-out
echo "=== uid 65534"; user_grade batch "$U" --out /tmp/u65534/r41-a04-out/grades.csv --no-perf --jobs 2
cat /tmp/u65534/r41-a04-out/grades.csv
rm -rf "$U" /tmp/u65534/r41-a04-out
leftovers
