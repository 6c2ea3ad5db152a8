#!/bin/bash
# the performance phase too (no --no-perf), -v: the memory verdict of the Allocations case
cd "$(dirname "$0")"; source /work/round60/lib.sh
for s in sub control; do
  echo "########## $s (perf on)"
  echo "=== root"; root_grade exercise10 --submission "$PWD/$s" -v
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r60-perf-$s); user_grade exercise10 --submission "$U" -v; rm -rf "$U"
done
leftovers
