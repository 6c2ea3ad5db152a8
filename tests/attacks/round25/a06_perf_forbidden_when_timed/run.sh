#!/bin/bash
# Timed phase: honest-but-slow softmax (a Python loop over rows) in the suites, torch.softmax (forbidden in exercise 5) only when every call so far had the performance case's shape (the timing child). Must not get a tier from the forbidden path.
cd "$(dirname "$0")"; source /work/round25/lib.sh
echo "=== root"; root_grade exercise5 --submission $PWD/sub --no-color  2>&1 | tail -${TAIL:-25}
d=$(user_copy sub a06_perf_forbidden_when_timed); echo "=== user (uid 65534)"; user_grade exercise5 --submission $d --no-color  2>&1 | tail -${TAIL:-25}
leftovers
