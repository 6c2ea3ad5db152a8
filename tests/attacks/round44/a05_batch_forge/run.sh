#!/bin/bash
# batch: alice = forged ex1 (probe patched) + ex5 (guard's violation cleared); bob = the same code without the forge
cd "$(dirname "$0")"; source /work/round44/lib.sh
rm -rf out; mkdir -p out
echo "=== root"; root_grade batch "$PWD/class" --out "$PWD/out/grades.csv" --no-perf; cut -d, -f1-3,7,14-17 out/grades.csv
echo "=== uid 65534"; U=$(user_copy "$PWD/class" r44-a05-class); user_grade batch "$U" --out /tmp/u65534/r44-a05-out/grades.csv --no-perf; cut -d, -f1-3,7,14-17 /tmp/u65534/r44-a05-out/grades.csv
rm -rf "$U" /tmp/u65534/r44-a05-out
leftovers
