#!/bin/bash
# controls: the solution (control/), and the same query-chunk cheat with amax/sum (control_wrong/), as root
cd "$(dirname "$0")"; source /work/round35/lib.sh
for c in control control_wrong; do echo "=== $c (root)"; root_grade exercise10 --submission "$PWD/$c" --no-perf | grep -v "^    ✓"; done
leftovers
