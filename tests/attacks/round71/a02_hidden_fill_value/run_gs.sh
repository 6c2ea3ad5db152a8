#!/bin/bash
# gradescope-run of ./sub with a course that withholds hidden checks (first hint level 3), as root and uid 65534;
# prints what a student sees before publication: the top-level output and the visible tests' outputs
cd "$(dirname "$0")"; source /work/round71/lib.sh
show() { python3 - "$1" <<'PY'
import json,sys
r=json.load(open(sys.argv[1]))
print("score", r["score"]); print("--- top-level output:"); print(r["output"])
for t in r["tests"]:
    if t["visibility"]=="visible" and t["status"]=="failed": print("--- visible test", t["name"]); print(t["output"])
print("--- hidden tests' visibility:", sorted({t["visibility"] for t in r["tests"] if t["name"].startswith("exercise4: a hidden") or t["visibility"]!="visible"}))
PY
}
for who in root user; do
  echo "=== $who"
  if [ $who = root ]; then R=$RT_TMP/gs; mkdir -p $R/submission $R/results; cp sub/*.py $R/submission/; cp course_gs.toml $R/
    (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-run --root $R --exercise exercise4 --no-perf --course $R/course_gs.toml); echo "[exit $?]"
  else R=$UT_TMP/gs; mkdir -p $R/submission $R/results; cp sub/*.py $R/submission/; cp course_gs.toml $R/; chown -R 65534:65534 $R
    (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade gradescope-run --root $R --exercise exercise4 --no-perf --course $R/course_gs.toml); echo "[exit $?]"
  fi
  show $R/results/results.json | grep -n "score\|128033\|➜\|---" ; rm -rf $R
done
leftovers
