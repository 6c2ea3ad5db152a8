#!/bin/bash
# Wrong answer (scale-by-d_k) and 0.4 s per call, so the diagnosis' example search and every test call again: --timeout 4 must bound the exercise.
cd "$(dirname "$0")"; source /work/round25/lib.sh
echo "=== root"; root_grade exercise3 --submission $PWD/sub --no-color --no-perf --timeout 4 2>&1 | tail -${TAIL:-25}
d=$(user_copy sub a13_slow_wrong_time_limit); echo "=== user (uid 65534)"; user_grade exercise3 --submission $d --no-color --no-perf --timeout 4 2>&1 | tail -${TAIL:-25}
leftovers
