#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534
cd "$(dirname "$0")"; source /work/round27/lib.sh
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf -v 2>&1 | grep -i -B1 -A2 "grader error\|recursion\|Total"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise3 --submission "$U" --no-perf -v 2>&1 | grep -i -B1 -A2 "grader error\|recursion\|Total"
leftovers
