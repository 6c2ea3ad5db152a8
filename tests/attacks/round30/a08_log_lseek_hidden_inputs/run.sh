#!/bin/bash
# reproduce: grade exercise3 from ./sub (and ./control/sub: the same with a plain print) as root and as
# uid 65534, JSON: the report's "output" of the exercise
cd "$(dirname "$0")"; source /work/round30/lib.sh
show() { python3 -c "import json,sys; t=sys.stdin.read(); i=t.rfind('[exit'); r=json.loads(t[:i]); e=r['exercises'][0]; print('score', e.get('score'), '/', e.get('max_score')); print('output:', repr(e.get('output'))[:200] + ' ... ' + repr(e.get('output'))[-120:]); print(t[i:])"; }
for d in sub control/sub; do
echo "=== root $d"; root_grade exercise3 --submission "$PWD/$d" --no-perf --format json | show
echo "=== uid 65534 $d"; U=$(user_copy "$PWD/$d" sub-a08-${d%%/*}); user_grade exercise3 --submission "$U" --no-perf --format json | show
done
leftovers
