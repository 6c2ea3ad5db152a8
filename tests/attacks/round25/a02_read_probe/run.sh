#!/bin/bash
# What the student's child can see: the kit, the answer key, the grader's suites, the Gradescope root,
# other users' files, places to write. (The answer-key and suite paths, named directly, are refused by
# the name rule: sub/ opens only paths not named by it; sub_gs/ runs in a Gradescope-like root where
# the kit is installed non-editable under lumen-venv; sub_user/ also tries to write outside.)
cd "$(dirname "$0")"; source /work/round25/lib.sh; source ../a01_gradescope_ladder/gs.sh
show() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); e=r['exercises'][0]; print('score', r['score'], r.get('containment')); print(e.get('output'))" "$1"; }
for v in sub sub_user; do
  echo "=== root $v"; root_grade exercise3 --submission $PWD/$v --no-perf --format json --output /tmp/r25-a02.json >/dev/null 2>&1; show /tmp/r25-a02.json
  d=$(user_copy $v a02); echo "=== user $v"; user_grade exercise3 --submission $d --no-perf --format json --output /tmp/u65534/a02.json >/dev/null 2>&1; show /tmp/u65534/a02.json
done
ls -d /tmp/u65534/a02-written /dev/shm/a02-written 2>&1
ZIP=/tmp/r25gs-ag3.zip; gs_build $ZIP exercise3 >/dev/null
for level in root user; do
  if [ $level = root ]; then R=/tmp/r25gs-a02; else R=/tmp/u65534/r25gs-a02; fi
  gs_root $R $ZIP $level; cp sub_gs/exercise3_scaling.py $R/submission/; [ $level = user ] && chown -R 65534:65534 $R
  echo '{"previous_submissions": []}' > $R/submission_metadata.json
  echo "=== Gradescope $level"; gs_run $R $level 2>&1 | sed -n '/your code printed/,/points/p' | sed "s|$R|\$ROOT|g"
done
leftovers
