#!/bin/bash
# exercise5 notebook with a typical notebook preamble cell (magics, numpy/matplotlib imports, seeds, print options,
# warnings filter) before the solution; control: without it. WITH tiers, root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
for s in sub control; do
  echo "########## $s"
  echo "=== root"; root_grade exercise5 --submission "$PWD/$s"
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r62-h10-$s); user_grade exercise5 --submission "$U"; rm -rf "$U"
done
leftovers
