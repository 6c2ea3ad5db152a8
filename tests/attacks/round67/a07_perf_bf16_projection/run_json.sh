#!/bin/bash
# per-case ratios of a07's sub, control and control_f32 (root only), from the JSON report's tier
cd "$(dirname "$0")"; source /work/round67/lib.sh
D=$PWD
for s in sub control control_f32/sub; do
  echo "########## $s"
  (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise1 --submission "$D/$s" --perf-points 10 --format json) > /tmp/r67_a07.json 2>/dev/null
  /opt/venv20/bin/python -c "
import json; d=json.load(open('/tmp/r67_a07.json'))
def walk(o):
    if isinstance(o, dict):
        if 'cases' in o and isinstance(o['cases'], list):
            for c in o['cases']: print('  ', c.get('label'), 'ratio', c.get('ratio'), 'student_ms', c.get('student_ms'), 'reference_ms', c.get('reference_ms'))
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(d)"
done
leftovers
