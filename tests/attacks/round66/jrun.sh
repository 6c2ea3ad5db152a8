#!/bin/bash
# jrun.sh DIR EXERCISE [extra flags]: grade DIR/sub as root and as 65534 with --format json, print score + output
d=$1; ex=$2; shift 2
source /work/round66/lib.sh
echo "=== root"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade $ex --submission $d/sub --no-perf --format json "$@") > /tmp/r66-root.json; echo "[exit $?]"
U=$(user_copy $d/sub r66-$(basename $d))
echo "=== uid 65534"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade $ex --submission $U --no-perf --format json "$@") > /tmp/r66-user.json; echo "[exit $?]"
rm -rf "$U"
for f in /tmp/r66-root.json /tmp/r66-user.json; do echo "--- $f"; /opt/venv20/bin/python -c "
import json,sys; r=json.load(open('$f'))
for e in r['exercises']: print(e['id'], e['score'], '/', e['max_score'], 'err:', e.get('error'), '| failed:', [t['name'] for t in e['tests'] if t['status']!='passed'][:8]); print('OUTPUT:', e['output'][:3000])
print('containment', r.get('containment'))
"; done
leftovers
