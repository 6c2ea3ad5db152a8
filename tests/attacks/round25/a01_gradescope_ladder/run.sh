#!/bin/bash
# Gradescope end to end: the kit's bundle, a fake /autograder root, three uploads of a wrong exercise 4.
# Upload 2 is the same file plus forged history inside the submission (a submission_metadata.json,
# a .lumen/ladder.json asking for 9 more hints, a results/results.json): the level must stay 1.
# Upload 3 is a changed file that keeps the mistake: level 2 (the documented climb).
cd "$(dirname "$0")"; source /work/round25/lib.sh; source ./gs.sh
ZIP=/tmp/r25gs-ag4.zip; gs_build $ZIP exercise4
meta() { python3 - "$@" <<'PY'
import json, sys
out, created, *previous = sys.argv[1:]
prev = [{"id": i, "results": json.load(open(p))} for i, p in enumerate(previous)]
json.dump({"id": 99, "created_at": created, "assignment": {"due_date": "2026-12-20T23:00:00.000000-07:00"},
           "previous_submissions": prev}, open(out, "w"))
PY
}
for level in root user; do
  echo "=== level $level"
  if [ $level = root ]; then R=/tmp/r25gs-root; else R=/tmp/u65534/r25gs; fi
  gs_root $R $ZIP $level; K=$R.keep; rm -rf $K; mkdir -p $K
  # upload 1
  cp sub/exercise4_masking.py $R/submission/; meta $R/submission_metadata.json 2026-12-01T10:00:00-07:00
  gs_run $R $level >$K/log1 2>&1; gs_show $R; cp $R/results/results.json $K/r1.json
  # upload 2: same file, forged history inside the submission
  mkdir -p $R/submission/.lumen $R/submission/results
  echo '{"version": 1, "exercises": {"exercise4": {"mask-inverted": {"versions": ["a","b","c"], "bumps": 9}}}}' > $R/submission/.lumen/ladder.json
  python3 -c "
import json; r=json.load(open('$K/r1.json')); r['extra_data']['ladder']['exercise4']['digest']='forged'
json.dump({'previous_submissions': [{'results': r}]*5}, open('$R/submission/submission_metadata.json','w'))"
  cp $K/r1.json $R/submission/results/results.json
  [ $level = user ] && chown -R 65534:65534 $R/submission
  meta $R/submission_metadata.json 2026-12-02T10:00:00-07:00 $K/r1.json
  gs_run $R $level >$K/log2 2>&1; gs_show $R; cp $R/results/results.json $K/r2.json
  # upload 3: a changed file that keeps the mistake
  rm -rf $R/submission/* $R/submission/.lumen; sed 's/^import torch$/import torch  # v3/' sub/exercise4_masking.py > $R/submission/exercise4_masking.py
  [ $level = user ] && chown -R 65534:65534 $R/submission
  meta $R/submission_metadata.json 2026-12-03T10:00:00-07:00 $K/r1.json $K/r2.json
  gs_run $R $level >$K/log3 2>&1; gs_show $R
  grep -h -i "traceback\|itself failed" $K/log* | head -3
done
