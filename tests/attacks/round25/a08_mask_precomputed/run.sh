#!/bin/bash
# Timed phase, exercise 4: causal_mask returns a slice of one 4096x4096 mask made at import (every causal
# mask is the top-left corner of a larger one), defeating "L drawn from 128 to 2048 each round (too many
# masks to make ahead and look up)". Compare the per-case ratios with the solution's, same machine.
cd "$(dirname "$0")"; HERE=$PWD; source /work/round25/lib.sh
show() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); e=r['exercises'][0]; t=e['tier']
print(sys.argv[2], e['score'], '/', e['max_score'], '| tier', t['id'], t['ratio'], '|', [(c.get('label') or c.get('case'), c.get('ratio')) for c in t.get('cases', [])])" "$1" "$2"; }
for s in /work/scratch20/solutions $HERE/sub; do
  root_grade exercise4 --submission $s --format json --output /tmp/r25-a08.json >/dev/null 2>&1; show /tmp/r25-a08.json "root $(basename $s)"
done
cp -r /work/scratch20/solutions/exercise4_masking.py /tmp/r25-a08-sol.py; mkdir -p /tmp/r25-a08-solution; mv /tmp/r25-a08-sol.py /tmp/r25-a08-solution/exercise4_masking.py
for s in /tmp/r25-a08-solution $HERE/sub; do
  d=$(user_copy $s a08-$(basename $s)); user_grade exercise4 --submission $d --format json --output /tmp/u65534/a08.json >/dev/null 2>&1; show /tmp/u65534/a08.json "user $(basename $s)"
done
leftovers
