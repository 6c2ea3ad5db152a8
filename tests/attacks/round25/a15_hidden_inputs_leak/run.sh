#!/bin/bash
# Hidden checks' inputs leak through a visible check's failure message (the printed-output channel is
# withheld for hidden checks; the exception channel is not). Text report, and Gradescope with
# --printed-visibility hidden.
cd "$(dirname "$0")"; source /work/round25/lib.sh; source ../a01_gradescope_ladder/gs.sh
echo "=== root, text report"; root_grade exercise3 --submission $PWD/sub --no-color --no-perf 2>&1 | tail -6
d=$(user_copy sub a15); echo "=== user, text report"; user_grade exercise3 --submission $d --no-color --no-perf 2>&1 | tail -6
ZIP=/tmp/r25gs-ag3-hidden.zip
(cd /tmp && /opt/venv20/bin/lumen-grade gradescope-bundle --out $ZIP --exercise 3 --printed-visibility hidden --hidden-visibility hidden 2>&1 | tail -1)
for level in root user; do
  if [ $level = root ]; then R=/tmp/r25gs-a15; else R=/tmp/u65534/r25gs-a15; fi
  gs_root $R $ZIP $level; cp sub/exercise3_scaling.py $R/submission/; [ $level = user ] && chown -R 65534:65534 $R
  gs_run $R $level >/dev/null 2>&1
  echo "=== $level, Gradescope results.json: visible tests whose output names the hidden inputs"
  python3 -c "
import json; r=json.load(open('$R/results/results.json'))
print('stdout_visibility', r.get('stdout_visibility'))
for t in r['tests']:
    if 'constant scores' in t['output'] or t['visibility'] != 'visible': print(t['visibility'], '|', t['name'], '|', t['output'][:200])"
done
leftovers
