#!/bin/bash
# a11: bob's exercise4_masking.ipynb carries the metadata of exercise3's notebook (a copy he renamed):
# `all` and `batch` turn that into a usage error for the whole run; Gradescope grades the rest.
# student/: right exercise3 + the mislabelled notebook; control/: the same notebook labelled exercise4.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
for who in student control; do
  echo "===== ROOT all, $who"; root_grade all --submission "$HERE/$who" --no-perf 2>&1 | tail -4
  U=$(user_copy "$HERE/$who" a11-$who)
  echo "===== USER all, $who"; user_grade all --submission "$U" --no-perf 2>&1 | tail -4; rm -rf "$U"
  C=/tmp/a11-class; rm -rf $C; mkdir -p $C/alice $C/bob; cp /work/scratch20/solutions/*.py $C/alice/; cp "$HERE/$who/"* $C/bob/
  echo "===== ROOT batch, bob = $who"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out /tmp/a11-root/g.csv --no-perf -j 2 --force >/dev/null 2>&1; echo "[batch exit $?]")
  cut -d, -f1,2,5,6,13,18 /tmp/a11-root/g.csv | cut -c1-220
  UC=$(user_copy $C a11-class); mkdir -p /tmp/u65534/a11-out; chown 65534 /tmp/u65534/a11-out
  echo "===== USER batch, bob = $who"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch $UC --out /tmp/u65534/a11-out/g.csv --no-perf -j 2 --force >/dev/null 2>&1; echo "[batch exit $?]")
  cut -d, -f1,2,5,6,13,18 /tmp/u65534/a11-out/g.csv | cut -c1-220
  G=/tmp/a11-gs; rm -rf $G; mkdir -p $G/submission; cp "$HERE/$who/"* $G/submission/
  (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-run --root $G --no-perf >/dev/null 2>&1)
  echo "===== ROOT gradescope-run, $who: score $(python3 -c "import json; print(json.load(open('$G/results/results.json'))['score'])")"
  rm -rf $C $UC $G /tmp/a11-root /tmp/u65534/a11-out
done
leftovers
