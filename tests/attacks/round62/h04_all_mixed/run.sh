#!/bin/bash
# lumen-grade all on ./sub (mixed .py / notebooks, odd encodings), root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
echo "=== root"; root_grade all --submission "$PWD/sub" --no-perf
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r62-h04); user_grade all --submission "$U" --no-perf; rm -rf "$U"
leftovers
