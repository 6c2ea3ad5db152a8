#!/bin/bash
# without --hints all: a fresh folder shows hint 1; `lumen-grade hint exercise5` climbs to hint 2, the example
cd "$(dirname "$0")"; source /work/round66/lib.sh
rm -rf /tmp/r66-ladder; cp -r sub /tmp/r66-ladder; rm -rf /tmp/r66-ladder/.lumen
echo "=== root, plain run"; root_grade exercise5 --submission /tmp/r66-ladder --no-perf | grep -E "hint [0-9] of|dead rows"
echo "=== root, lumen-grade hint exercise5"; root_grade hint exercise5 --submission /tmp/r66-ladder | grep -E "hint [0-9] of|dead rows"
rm -rf /tmp/r66-ladder
U=$(user_copy "$PWD/sub" r66-ladder)
echo "=== uid 65534, plain run"; user_grade exercise5 --submission $U --no-perf | grep -E "hint [0-9] of|dead rows"
echo "=== uid 65534, lumen-grade hint exercise5"; user_grade hint exercise5 --submission $U | grep -E "hint [0-9] of|dead rows"
rm -rf "$U"
HERE=$PWD; echo "=== control (JSON output field, root)"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise5 --submission $HERE/control --no-perf --format json) | /opt/venv20/bin/python -c "
import json,sys; e=json.load(sys.stdin)['exercises'][0]; print(e['output'][-200:]); print('hidden inputs in control report:', 'q(2, 5, 4) torch.float64' in json.dumps(e))"
leftovers
