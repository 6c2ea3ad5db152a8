#!/bin/bash
# exercise 8 mistakes against the new diagnoses (len:newest-update, cache:returns-new): the diagnosis each gets,
# as root and as uid 65534 (course: every hint level shown)
cd "$(dirname "$0")"; source /work/round71/lib.sh; H=$PWD
for d in m*/; do d=${d%/}
  echo "########## $d"
  echo "=== root"; root_grade exercise8 --submission "$H/$d" --no-perf --hints all 2>&1 | grep -A2 "hint 3 of\|Total\|exit code"
  U=$(user_copy "$H/$d" r71-o01-$d); echo "=== uid 65534"; user_grade exercise8 --submission "$U" --no-perf --hints all 2>&1 | grep -A2 "hint 3 of\|Total\|exit code"; rm -rf "$U"
done
leftovers
