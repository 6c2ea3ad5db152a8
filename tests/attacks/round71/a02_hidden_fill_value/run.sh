#!/bin/bash
# reproduce: grade exercise4 from ./sub (and ./control) as root and as uid 65534
cd "$(dirname "$0")"; source /work/round71/lib.sh
for s in sub control; do
  [ -d "$s" ] || continue
  echo "########## $s"
  echo "=== root"; root_grade exercise4 --submission "$PWD/$s" --no-perf --course /work/round71/a02_hidden_fill_value/course.toml --hints all
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r71-$(basename "$PWD")-$s); user_grade exercise4 --submission "$U" --no-perf --course /work/round71/a02_hidden_fill_value/course.toml --hints all
  rm -rf "$U"
done
leftovers
