#!/bin/bash
# reproduce: exercise 3's tier for slow honest code (slow/) and for the same code with cache-flushing threads (sub/)
cd "$(dirname "$0")"; source /work/round27/lib.sh
for level in root user; do for d in slow sub; do
  echo "=== $level: $d"
  if [ $level = root ]; then root_grade exercise3 --submission "$PWD/$d" --format json > /tmp/a10.json 2>&1
  else U=$(user_copy "$PWD/$d" a10-$d); user_grade exercise3 --submission "$U" --format json > /tmp/a10.json 2>&1; fi
  python3 -c "
import json,sys; t=open('/tmp/a10.json').read(); r=json.loads(t[t.find('{'):t.rfind('}')+1]); e=r['exercises'][0]
print(e['score'], e['tier'] and (e['tier']['name'], e['tier'].get('ratio')), (e['tier'] or {}).get('message','')[:200])"
done; done
leftovers
