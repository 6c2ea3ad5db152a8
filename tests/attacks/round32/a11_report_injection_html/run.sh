#!/bin/bash
# reproduce: a message and printed text with HTML/markdown/fake report lines, in text, html and gradescope reports
cd "$(dirname "$0")"; source /work/round32/lib.sh
echo "=== root text"; root_grade exercise2 --submission "$PWD/sub" --no-perf
echo "=== root html"; root_grade exercise2 --submission "$PWD/sub" --no-perf --format html --output "$RT_TMP/r.html"
grep -o ".\{80\}alert.\{80\}" "$RT_TMP/r.html" | head -5; grep -c "<script>alert" "$RT_TMP/r.html"; grep -c "<script" "$RT_TMP/r.html"
echo "=== root gradescope"; root_grade exercise2 --submission "$PWD/sub" --no-perf --format gradescope --output "$RT_TMP/r.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print({k:v for k,v in d.items() if k!='tests'}); [print(t.get('output_format'), repr(t.get('output'))[:400]) for t in d['tests'][:2]]" "$RT_TMP/r.json"
echo "=== uid 65534 text"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise2 --submission "$U" --no-perf
leftovers
