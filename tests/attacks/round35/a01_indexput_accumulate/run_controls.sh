#!/bin/bash
# the controls: honest solution (control/) and plainly three products (control_wrong/), as root
cd "$(dirname "$0")"; source /work/round35/lib.sh
for c in control control_wrong; do echo "=== $c (root)"; root_grade exercise1 --submission "$PWD/$c" --no-perf | tail -8; done
leftovers
