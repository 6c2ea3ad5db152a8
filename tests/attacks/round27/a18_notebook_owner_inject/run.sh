#!/bin/bash
# reproduce: a notebook whose metadata `lumen.exercise` (the exercise it claims to belong to) is text with
# newlines. The "notebook of another exercise" error quotes it twice, newlines kept: fake "✓ ... 26/26" and
# "Total: 26/26 — 1 of 1 exercise(s) passed" lines in the CLI's error output and in Gradescope's output.
cd "$(dirname "$0")"; source /work/round27/lib.sh
gs() { python3 -c "import json; r=json.load(open('$1/results/results.json')); print('score', r['score']); print(r['output'][:420])"; }
echo "=== root: lumen-grade exercise4 (text)"; root_grade exercise4 --submission "$PWD/sub" --no-perf 2>&1 | cat -s
echo "=== root: gradescope-run"; rm -rf /tmp/a18ag; mkdir -p /tmp/a18ag/submission; cp sub/*.ipynb /tmp/a18ag/submission/
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-run --root /tmp/a18ag --no-perf --exercise exercise4 >/dev/null 2>&1); gs /tmp/a18ag | cat -s
echo "=== uid 65534: lumen-grade exercise4 (text)"; U=$(user_copy "$PWD/sub" a18-sub); user_grade exercise4 --submission "$U" --no-perf 2>&1 | cat -s
echo "=== uid 65534: gradescope-run"; R=/tmp/u65534/a18ag; rm -rf $R; mkdir -p $R/submission; cp sub/*.ipynb $R/submission/; chown -R 65534:65534 $R
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade gradescope-run --root $R --no-perf --exercise exercise4 >/dev/null 2>&1); gs $R | cat -s
rm -rf $R; leftovers
