#!/bin/bash
# grade exercise4 WITH performance tiers from ./sub and ./control, as root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
for s in sub control; do
  echo "########## $s"
  echo "=== root"; root_grade exercise4 --submission "$PWD/$s" -v
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r62-a05-$s); user_grade exercise4 --submission "$U" -v; rm -rf "$U"
done
leftovers
