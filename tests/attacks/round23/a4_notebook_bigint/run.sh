#!/bin/bash
# a4: a notebook whose JSON holds an integer of 5000 digits (valid JSON) crashes the grader:
# json.loads raises a plain ValueError (int max str digits), which read_notebook does not catch.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
for who in student control; do
  echo "===== ROOT $who: lumen-grade all"; root_grade all --submission "$HERE/$who" --no-perf 2>&1 | tail -4
  U=$(user_copy "$HERE/$who" a4-$who)
  echo "===== USER $who: lumen-grade all"; user_grade all --submission "$U" --no-perf 2>&1 | tail -4; rm -rf "$U"
done
# batch: alice (every solution) and bob (the crafted notebook + a right exercise3)
C=/tmp/a4-class; rm -rf $C; mkdir -p $C/alice $C/bob; cp /work/scratch20/solutions/*.py $C/alice/; cp "$HERE/student/"* $C/bob/
echo "===== ROOT batch"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out /tmp/a4-root-grades.csv --no-perf -j 1 --force; echo "[exit $?]") 2>&1 | tail -5
cut -c1-200 /tmp/a4-root-grades.csv
UC=$(user_copy $C a4-class); mkdir -p /tmp/u65534/a4-out; chown 65534 /tmp/u65534/a4-out
echo "===== USER batch"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch $UC --out /tmp/u65534/a4-out/grades.csv --no-perf -j 1 --force; echo "[exit $?]") 2>&1 | tail -5
cut -c1-200 /tmp/u65534/a4-out/grades.csv
# Gradescope: the autograder's run on bob's upload
G=/tmp/a4-gs; rm -rf $G; mkdir -p $G/submission; cp "$HERE/student/"* $G/submission/
echo "===== ROOT gradescope-run"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-run --root $G --no-perf > /tmp/a4-gs.log 2>&1; echo "[exit $?]")
python3 -c "import json; d=json.load(open('$G/results/results.json')); print('score', d['score'], '|', d.get('output','')[:300])"
GU=$(user_copy $G a4-gs)
echo "===== USER gradescope-run"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade gradescope-run --root $GU --no-perf > /tmp/a4-gs-user.log 2>&1; echo "[exit $?]")
python3 -c "import json; d=json.load(open('$GU/results/results.json')); print('score', d['score'], '|', d.get('output','')[:300])"
rm -rf $C $UC $G $GU /tmp/u65534/a4-out /tmp/a4-root-grades* /tmp/a4-gs*.log; leftovers
