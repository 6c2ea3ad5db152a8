#!/bin/bash
# Timed phase: a thread started at import spins forever (work between and during the timed calls, never joined): its CPU must be charged, and nothing must be left running.
cd "$(dirname "$0")"; source /work/round25/lib.sh
echo "=== root"; root_grade exercise3 --submission $PWD/sub --no-color  2>&1 | tail -${TAIL:-25}
d=$(user_copy sub a12_perf_background_thread); echo "=== user (uid 65534)"; user_grade exercise3 --submission $d --no-color  2>&1 | tail -${TAIL:-25}
leftovers
