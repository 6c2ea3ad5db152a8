#!/bin/bash
# h06_perf_exercise8: the solution's exercise8 with its performance tier (no --no-perf), --perf-points 10, root and uid 65534
cd "$(dirname "$0")"; source /work/round69/lib.sh
echo "=== root"; root_grade exercise8 --submission "$PWD/sub" --perf-points 10
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r69-h06_perf_exercise8-sub); user_grade exercise8 --submission "$U" --perf-points 10; rm -rf "$U"
leftovers
