#!/bin/bash
# exercise3 graded with .lumen/ladder.json damaged: sub = 200000 nested brackets (400 kB, under the 1 MiB cap),
# control = 10 nested brackets; each (re)written before each grading; root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
mk() { mkdir -p $1/.lumen; python3 -c "import sys; n=int(sys.argv[2]); open(sys.argv[1],'w').write('['*n+']'*n)" $1/.lumen/ladder.json $2; }
for s in sub control; do
  n=200000; [ $s = control ] && n=10
  echo "########## $s"
  mk $s $n; echo "=== root"; root_grade exercise3 --submission "$PWD/$s" --no-perf
  mk $s $n; echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r62-a02-$s); user_grade exercise3 --submission "$U" --no-perf; rm -rf "$U"
  echo "=== root, hint"; mk $s $n; root_grade hint exercise3 --submission "$PWD/$s" --no-perf 2>&1 | tail -3
done
# watch on sub (damaged ladder) for 25 s, root
echo "=== root, watch (25 s)"; mk sub 200000
(cd /tmp && TMPDIR=$RT_TMP timeout -s INT 25 /opt/venv20/bin/lumen-grade watch exercise3 --submission /work/round62/a02_ladder_deep_json/sub --no-perf --no-color > /tmp/r62-a02-watch.log 2>&1; echo "[watch exit $?]")
grep -E "RecursionError|ladder.py|exercise3 |watching" /tmp/r62-a02-watch.log; rm -f /tmp/r62-a02-watch.log
leftovers
