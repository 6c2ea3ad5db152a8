#!/bin/bash
# reproduce: exercise 8 with an off-by-one capacity check (refuses to fill the cache exactly) whose ValueError
# message holds a lone surrogate. The diagnosis's smallest example quotes the message unclean, and every format
# that shows it crashes on writing UTF-8: text with --hints all, json, batch (its row becomes `error`), Gradescope.
cd "$(dirname "$0")"; source /work/round27/lib.sh
tb() { grep -E "UnicodeEncodeError|Total:|exit code" | tail -3; }
for level in root user; do
  if [ $level = root ]; then G=root_grade; S="$PWD/sub"; O=/tmp/a14r; rm -rf $O; mkdir -p $O
  else G=user_grade; S=$(user_copy "$PWD/sub" a14-sub); O=/tmp/u65534/a14o; rm -rf $O; as_user mkdir -p $O; fi
  echo "=== $level: text, default hints";  $G exercise8 --submission "$S" --no-perf 2>&1 | tb
  echo "=== $level: text --hints all";     $G exercise8 --submission "$S" --no-perf --hints all 2>&1 | tb
  echo "=== $level: --format json";        $G exercise8 --submission "$S" --no-perf --format json 2>&1 | tb
  echo "=== $level: --format html";        $G exercise8 --submission "$S" --no-perf --format html --output $O/page.html 2>&1 | tb
  echo "=== $level: batch";  mkdir -p $O/class/dave; cp "$S/exercise8_kv_cache.py" $O/class/dave/; [ $level = user ] && chown -R 65534:65534 $O
  $G batch $O/class --out $O/grades.csv --no-perf --device cpu 2>&1 | tail -1; cut -d, -f1,2,10,12,13,17 $O/grades.csv | cut -c1-300
  echo "=== $level: gradescope-run"; mkdir -p $O/ag/submission; cp "$S/exercise8_kv_cache.py" $O/ag/submission/; [ $level = user ] && chown -R 65534:65534 $O
  $G gradescope-run --root $O/ag --no-perf 2>&1 | tb
  python3 -c "import json; r=json.load(open('$O/ag/results/results.json')) if __import__('os').path.exists('$O/ag/results/results.json') else None; print('results.json:', r and (r['score'], r.get('output','')[:200]))"
done
rm -rf /tmp/u65534/a14o; leftovers
