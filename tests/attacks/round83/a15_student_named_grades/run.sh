#!/bin/bash
# a15: a student whose folder is named `grades`, in a class graded from inside the class folder with the default
# --out (grades.csv: the reports folder is ./grades, the student's own folder). The student's folder holds, beside
# their exercise file, alice.json: a valid record for alice with 0 points (made here by grading the released stub
# under the name alice, as any student can with the kit), and bob.json: the same record edited (forge.py) to every
# check passed, full points. Class: alice and bob (exercise3 solution), grades.
# `cd CLASS && lumen-grade batch .`: is alice graded, or does the batch take the planted record as hers?
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
template() {  # template DIR: DIR/alice.json, a batch record of alice's with the exercise3 stub (0 points)
  mkdir -p $1/c/alice; cp /work/scratch20/exercises/exercise3_scaling.py $1/c/alice/
  (cd $1 && TMPDIR=$1 /opt/venv20/bin/lumen-grade batch c --out o/grades.csv --no-perf --timeout 20 >/dev/null 2>&1)
  cp $1/o/grades/alice.json $1/alice.json; rm -rf $1/c $1/o
}
mkclass() {  # mkclass DIR TEMPLATE
  rm -rf "$1"; for s in alice bob grades; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done
  cp $2 "$1/grades/alice.json"; python3 forge.py $2 "$1/grades/bob.json" bob
}
show() { echo "--- grades.csv"; cut -d, -f1,2,3,4,13,14 "$1/grades.csv"; echo "--- $1/grades/: $(ls $1/grades | tr '\n' ' ')"; }
T=$RT_TMP/template; mkdir -p $T; template $T
echo "planted alice.json: $(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['student'], r['status'], r['report']['score'], '/', r['report']['max_score'])" $T/alice.json)"
echo "=================== root"
C=$RT_TMP/class; mkclass $C $T/alice.json
(cd $C && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch . --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | tail -5); echo "[batch exit $?]"
show $C; rm -rf $C
echo "------ root, the same class with --force (regrade everyone)"; mkclass $C $T/alice.json
(cd $C && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch . --force --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | tail -5); echo "[batch exit $?]"
show $C; rm -rf $C
echo "=================== uid 65534"
mkclass /tmp/r83a15 $T/alice.json; U=$(user_copy /tmp/r83a15 r83-a15-class); rm -rf /tmp/r83a15
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd $U && lumen-grade batch . --no-perf --timeout 20 -j 2 2>&1 | cut -c1-200 | tail -5; echo [batch exit \$?]"
show $U; rm -rf $U $T
leftovers
