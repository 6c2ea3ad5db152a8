#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534 (JSON: the printed probe output)
cd "$(dirname "$0")"; source /work/round30/lib.sh
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf --format json | python3 -c "import json,sys; t=sys.stdin.read(); i=t.rfind('[exit'); r=json.loads(t[:i]); print(r['exercises'][0].get('output')); print(t[i:])"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise3 --submission "$U" --no-perf --format json | python3 -c "import json,sys; t=sys.stdin.read(); i=t.rfind('[exit'); r=json.loads(t[:i]); print(r['exercises'][0].get('output')); print(t[i:])"
leftovers
