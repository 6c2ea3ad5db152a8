#!/bin/bash
# both sub and control run the tiled loop 6 times over (a slow solution); sub also remembers answers by input values
# reproduce: grade exercise10 WITH its performance tier and --perf-points 5, from ./sub (memo cache) and
# ./control/sub (the same code without the cache), as root and as uid 65534
cd "$(dirname "$0")"; source /work/round31/lib.sh
for which in sub control/sub; do
  echo "=== root: $which"; root_grade exercise10 --submission "$PWD/$which" --perf-points 5 -v | grep -v "^    ✓ .*test_"
  echo "=== uid 65534: $which"; U=$(user_copy "$PWD/$which" sub-a16-$(basename $(dirname $PWD/$which))); user_grade exercise10 --submission "$U" --perf-points 5 -v | grep -v "^    ✓ .*test_"
done
leftovers
