#!/bin/bash
# per-case ratios (JSON report) of sub and control, root
cd /tmp; for s in sub control; do TMPDIR=/tmp /opt/venv20/bin/lumen-grade exercise4 --submission /work/round62/a01_mask_slice/$s --format json --output /tmp/r62_a01_$s.json >/dev/null 2>&1; /opt/venv20/bin/python -c "
import json; d=json.load(open('/tmp/r62_a01_$s.json')); t=d['exercises'][0]['tier']
print('$s', t['id'], t['ratio'], [(c['label'][:40], c.get('ratio'), c.get('student_ms'), c.get('reference_ms')) for c in t['cases']])"; rm -f /tmp/r62_a01_$s.json; done
