#!/bin/bash
# a3: scale_scores returns or raises odd things (one variant per folder); scaled_scores is right.
# For each: points, exit code, whether the grader crashed (no JSON report), time taken, leftovers.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$HERE/out"
for v in ${VARIANTS:-$(ls "$HERE/variants")}; do
  S="$HERE/variants/$v"
  for level in root user; do
    start=$(date +%s.%N)
    if [ $level = root ]; then root_grade exercise3 --submission "$S" --no-perf --timeout 10 --format json > "$HERE/out/$v.$level" 2>&1
    else U=$(user_copy "$S" a3-$v); user_grade exercise3 --submission "$U" --no-perf --timeout 10 --format json > "$HERE/out/$v.$level" 2>&1; rm -rf "$U"; fi
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    printf '%-26s %-4s %5.1fs  %s\n' "$v" "$level" "$secs" "$(python3 "$HERE/summarize.py" "$HERE/out/$v.$level")"
  done
done
leftovers
