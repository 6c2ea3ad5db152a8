#!/bin/bash
# control: the kit's own solutions for exercises 1, 8 and 10, graded as root and as uid 65534
cd "$(dirname "$0")"; source /work/round38/lib.sh
for EX in exercise1 exercise8 exercise10; do
echo "=== $EX root"; root_grade $EX --submission "$PWD/sub" --no-perf 2>&1 | grep -E "Total|✗|exit"
echo "=== $EX uid 65534"; U=$(user_copy "$PWD/sub" r38-a00-sub); user_grade $EX --submission "$U" --no-perf 2>&1 | grep -E "Total|✗|exit"; rm -rf "$U"
done
leftovers
