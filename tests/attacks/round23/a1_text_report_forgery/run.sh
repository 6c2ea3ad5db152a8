#!/bin/bash
# a1: exception messages holding newlines, U+2028 and a fake "✓ exercise3 … 21/21" + "Total: 21/21" line:
# do they show as report lines of their own (text, Gradescope output), at root and as uid 65534?
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
for who in attack control; do
  echo "===== ROOT text, $who"; root_grade exercise3 --submission "$HERE/$who" --no-perf
  U=$(user_copy "$HERE/$who" a1-$who)
  echo "===== USER text, $who"; user_grade exercise3 --submission "$U" --no-perf; rm -rf "$U"
done
G=/tmp/a1-gs; rm -rf $G; mkdir -p $G/submission; cp "$HERE/attack/"* $G/submission/
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-run --root $G --no-perf >/dev/null 2>&1)
echo "===== ROOT gradescope output (lines that start at column 0 with ✓ or Total):"
python3 -c "import json; d=json.load(open('$G/results/results.json')); print('score', d['score']); out=d.get('output',''); [print(repr(l)) for l in out.splitlines() if l.startswith(('✓','Total'))]; [print('test output:', repr(t.get('output','')[:200])) for t in d['tests'] if 'scale_scores' in t.get('name','')][:1]"
GU=$(user_copy $G a1-gs); (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade gradescope-run --root $GU --no-perf >/dev/null 2>&1)
echo "===== USER gradescope output:"
python3 -c "import json; d=json.load(open('$GU/results/results.json')); print('score', d['score']); out=d.get('output',''); [print(repr(l)) for l in out.splitlines() if l.startswith(('✓','Total'))]"
rm -rf $G $GU; leftovers
