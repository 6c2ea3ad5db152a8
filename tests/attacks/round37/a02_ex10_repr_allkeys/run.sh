#!/bin/bash
# reproduce: grade exercise10 from ./sub as root and as uid 65534
cd "$(dirname "$0")"; source /work/round37/lib.sh
echo "=== root"; root_grade exercise10 --submission "$PWD/sub" --no-perf -v
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise10 --submission "$U" --no-perf -v
leftovers
echo "=== control (same code, no laundering), root"; root_grade exercise10 --submission "$PWD/control" --no-perf -v
