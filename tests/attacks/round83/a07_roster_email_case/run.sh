#!/bin/bash
# a07: roster registration. Mallory registered the email ALICE@uni.edu (alice's, in capitals: an LMS that
# compares emails case-sensitively lets her). The class's folders are named by email, as the LMS exports them:
# alice@uni.edu, bob@uni.edu, ALICE@uni.edu (mallory's); each holds the exercise3 solution.
# batch --roster roster.csv: what are alice's and mallory's rows?
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
mkclass() { rm -rf "$1"; for s in alice@uni.edu bob@uni.edu ALICE@uni.edu; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done; }
show() { python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(' ', r['student_id'], r['name'], r['email'], '| folder:', repr(r['student']), '|', r['status'], r['total'], r['max_score'], '|', r['message'][:120])" "$1"; }
echo "=================== root"
C=/tmp/r83a07-class; mkclass $C; cp roster.csv $RT_TMP/
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --roster $RT_TMP/roster.csv --out $RT_TMP/out/grades.csv --no-perf --timeout 20 -j 2 2>&1 | tail -6); echo "[batch exit $?]"
show $RT_TMP/out/grades.csv
echo "=================== uid 65534"
U=$(user_copy $C r83-a07-class); rm -rf $C; cp roster.csv $UT_TMP/; chown 65534 $UT_TMP/roster.csv
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade batch $U --roster $UT_TMP/roster.csv --out $UT_TMP/out/grades.csv --no-perf --timeout 20 -j 2 2>&1 | tail -6; echo [batch exit \$?]"
show $UT_TMP/out/grades.csv
rm -rf $U $RT_TMP/out $UT_TMP/out $RT_TMP/roster.csv $UT_TMP/roster.csv
leftovers
