#!/bin/bash
# the hint ladder for m30, as root and as uid 65534 (on copies, so the .lumen state of sub/ is untouched)
cd "$(dirname "$0")"; source /work/round68/lib.sh
R=/tmp/r68-m30-root; rm -rf $R; cp -a sub $R; rm -rf $R/.lumen
echo "=== root --hints all"; root_grade exercise8 --submission $R --no-perf --hints all
echo "=== root hint (climb)"; root_grade hint exercise8 --submission $R --no-perf
U=$(user_copy "$PWD/sub" r68-m30-hint); rm -rf $U/.lumen
echo "=== uid 65534 --hints all"; user_grade exercise8 --submission $U --no-perf --hints all
rm -rf $U $R
leftovers
