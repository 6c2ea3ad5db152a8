#!/bin/bash
# grade exercise3 with --timeout 5 --total-timeout 10: the trick file (N rebinds of one local, N getattr
# reads) keeps the judge busy far past both limits in grader.sandbox.reach before any child runs
cd "$(dirname "$0")"; source /work/round59/lib.sh
for s in sub control; do
  echo "########## $s ($(wc -c < $s/exercise3_scaling.py) bytes)"
  echo "=== root"; S=$(date +%s.%N); root_grade exercise3 --submission "$PWD/$s" --no-perf --timeout 5 --total-timeout 10 | tail -4; echo "wall: $(echo "$(date +%s.%N) - $S" | bc) s"
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r59-a03-$s); S=$(date +%s.%N); user_grade exercise3 --submission "$U" --no-perf --timeout 5 --total-timeout 10 | tail -4; echo "wall: $(echo "$(date +%s.%N) - $S" | bc) s"
  rm -rf "$U"
done
leftovers
