#!/bin/bash
# reproduce: file names with a newline / escape codes beside the graded file, text and json reports
cd "$(dirname "$0")"; bash setup.sh; source /work/round32/lib.sh
echo "=== root"; root_grade exercise2 --submission "$PWD/sub" --no-perf | cat -A | cut -c1-200
echo "=== root all"; root_grade all --submission "$PWD/sub" --no-perf | cat -A | head -30 | cut -c1-200
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise2 --submission "$U" --no-perf | cat -A | cut -c1-200
leftovers; rm -rf sub
