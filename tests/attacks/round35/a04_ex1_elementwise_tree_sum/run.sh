#!/bin/bash
# reproduce: grade exercise1 from ./sub as root and as uid 65534
cd "$(dirname "$0")"; source /work/round35/lib.sh
echo "=== root"; root_grade exercise1 --submission "$PWD/sub" --no-perf -v
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise1 --submission "$U" --no-perf -v
leftovers
