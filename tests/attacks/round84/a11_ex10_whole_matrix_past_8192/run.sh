#!/bin/bash
# reproduce: grade exercise10 from ./sub (and ./control) as root and as uid 65534
cd "$(dirname "$0")"; source /work/round84/lib.sh
for s in sub control; do
  [ -d "$s" ] || continue
  echo "########## $s"
  echo "=== root"; root_grade exercise10 --submission "$PWD/$s" --no-perf 
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r84-$(basename "$PWD")-$s); user_grade exercise10 --submission "$U" --no-perf 
  rm -rf "$U"
done
leftovers
echo "=== outside the grader: the memory one call takes"
for s in sub control; do echo "-- $s"; /opt/venv22/bin/python demo.py $s/exercise10_tiled_attention.py; done
