#!/bin/bash
# climb the hint ladder 4 times on ./sub (a copy), root and uid 65534; then a plain grade
cd "$(dirname "$0")"; source /work/round62/lib.sh
R=/tmp/r62-h03-root; rm -rf $R; cp -a sub $R
echo "=== root"; for i in 1 2 3 4; do echo "--- hint $i"; root_grade hint exercise3 --submission $R --no-perf; done
cat $R/.lumen/ladder.json; rm -rf $R
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r62-h03); for i in 1 2 3 4; do echo "--- hint $i"; user_grade hint exercise3 --submission "$U" --no-perf; done
rm -rf "$U"
leftovers
