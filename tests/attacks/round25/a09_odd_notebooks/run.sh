#!/bin/bash
# Odd notebooks (cells an int, true, a string, [None]; lumen owner a list / HTML; v3 oddities; huge minor;
# nbformat as a string; mixed source list; source a dict; attachments an int): one line each, no
# traceback; and on Gradescope, a notebook whose metadata names another exercise costs only that exercise.
cd "$(dirname "$0")"; source /work/round25/lib.sh; source ../a01_gradescope_ladder/gs.sh
rm -rf /tmp/r25-a09; python3 make.py /tmp/r25-a09 >/dev/null
for level in root user; do
  for d in /tmp/r25-a09/*; do
    if [ $level = root ]; then out=$(root_grade exercise3 --submission $d --no-perf --no-color 2>&1)
    else u=$(user_copy $d a09-$(basename $d)); out=$(user_grade exercise3 --submission $u --no-perf --no-color 2>&1); fi
    echo "=== $level $(basename $d): $(echo "$out" | grep -c Traceback) traceback(s), $(echo "$out" | grep -o 'exit code [0-9]*')"
    echo "$out" | grep -v -i "warning\|_validate" | grep -E "✗|✓|Error|error" | head -2
  done
done
ZIP=/tmp/r25gs-ag34.zip; gs_build $ZIP exercise3 exercise4 >/dev/null
for level in root user; do
  if [ $level = root ]; then R=/tmp/r25gs-a09; else R=/tmp/u65534/r25gs-a09; fi
  gs_root $R $ZIP $level; mkdir -p $R/submission/hw
  cp /tmp/r25-a09/nb_meta_owner_html/exercise3_scaling.ipynb $R/submission/hw/; cp /work/scratch20/solutions/exercise4_masking.py $R/submission/
  [ $level = user ] && chown -R 65534:65534 $R
  gs_run $R $level >/dev/null 2>&1
  echo "=== Gradescope $level"; python3 -c "
import json; r=json.load(open('$R/results/results.json')); print('score', r['score']); print('\n'.join(l for l in r['output'].splitlines() if 'exercise3' in l)[:600])"
done
leftovers
