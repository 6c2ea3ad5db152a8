#!/bin/bash
# reproduce: a file that passes all of exercise 3's tests and raises (message with a lone surrogate) only on the
# performance case: default text report, json, and Gradescope crash on writing the tier's message
cd "$(dirname "$0")"; source /work/round27/lib.sh
tb() { grep -E "UnicodeEncodeError|Total:|exit code|exercise3 " | tail -3; }
for level in root user; do
  if [ $level = root ]; then G=root_grade; S="$PWD/sub"; O=/tmp/a15r; rm -rf $O; mkdir -p $O
  else G=user_grade; S=$(user_copy "$PWD/sub" a15-sub); O=/tmp/u65534/a15o; rm -rf $O; as_user mkdir -p $O; fi
  echo "=== $level: text (default)"; $G exercise3 --submission "$S" 2>&1 | tb
  echo "=== $level: --no-perf (control)"; $G exercise3 --submission "$S" --no-perf 2>&1 | tb
  echo "=== $level: --format json"; $G exercise3 --submission "$S" --format json 2>&1 | tb
  echo "=== $level: gradescope-run"; mkdir -p $O/ag/submission; cp "$S/exercise3_scaling.py" $O/ag/submission/; [ $level = user ] && chown -R 65534:65534 $O
  $G gradescope-run --root $O/ag --exercise exercise3 2>&1 | tb; ls $O/ag/results 2>&1
done
rm -rf /tmp/u65534/a15o; leftovers
