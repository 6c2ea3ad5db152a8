#!/bin/bash
# reproduce: grade exercise10 from ./sub as root and as uid 65534 (text, then --json summary)
cd "$(dirname "$0")"; source /work/round35/lib.sh
echo "=== root"; root_grade exercise10 --submission "$PWD/sub" --no-perf 2>&1 | cut -c1-300 | head -60
echo "=== root --format json (parsed)"; root_grade exercise10 --submission "$PWD/sub" --no-perf --format json 2>/dev/null | head -n -1 | python3 -c "import json,sys; r=json.load(sys.stdin); print([(e[\"id\"], e.get(\"score\"), e.get(\"max_score\")) for e in r[\"exercises\"]])"; echo
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise10 --submission "$U" --no-perf 2>&1 | cut -c1-300 | head -60
leftovers
