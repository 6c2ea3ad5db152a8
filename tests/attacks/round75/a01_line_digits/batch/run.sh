#!/bin/bash
# batch-grade ./class (alice: exercise1 .py solution + the a01 notebook for exercise9; bob: exercise9 solution .py), root and uid 65534
cd "$(dirname "$0")"; source /work/round75/lib.sh
rm -rf out; mkdir out
echo "=== root"; root_grade batch "$PWD/class" --out "$PWD/out/grades.csv" --no-perf -j 1; cat out/grades.csv
U=$(user_copy "$PWD/class" r75-a01-class); mkdir -p /tmp/u65534/r75-a01-out; chown 65534 /tmp/u65534/r75-a01-out
echo "=== uid 65534"; user_grade batch "$U" --out /tmp/u65534/r75-a01-out/grades.csv --no-perf -j 1; cat /tmp/u65534/r75-a01-out/grades.csv
rm -rf "$U" /tmp/u65534/r75-a01-out
leftovers
