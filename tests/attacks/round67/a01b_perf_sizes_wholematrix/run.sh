#!/bin/bash
# reproduce: grade exercise10 from ./sub (and ./control) as root and as uid 65534, with the performance tier worth 10 points
cd "$(dirname "$0")"; source /work/round67/lib.sh
for s in sub control; do
  [ -d "$s" ] || continue
  echo "########## $s"
  echo "=== root"; root_grade exercise10 --submission "$PWD/$s" --perf-points 10 
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r67-$(basename "$PWD")-$s); user_grade exercise10 --submission "$U" --perf-points 10 
  rm -rf "$U"
done
leftovers
