#!/bin/bash
# a14: a03 (mallory: the exercise3 solution + N=6000 ignored notebooks under a ~3500-char chain) with a roster
# whose ids are the folder names: batch --shard 0/1 (which takes no roster), then merge --roster. What is mallory's row?
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-6000}
mkclass() { rm -rf "$1"; python3 gen.py "$1/mallory" $N; mkdir -p "$1/alice"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/alice/"; }
show() { python3 -c "
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(' ', r['student_id'], '| folder:', repr(r['student']), '|', r['status'], r['total'], r['max_score'], '|', r['message'][:120])" "$1"; }
echo "=================== root"
C=/tmp/r83a14-class; O=$RT_TMP/out; mkclass $C; mkdir -p $O; cp roster.csv $O/
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out $O/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -3); echo "[batch exit $?]"
echo "--- shard0/grades.csv (no roster: batch refuses --roster with --shard)"; cut -d, -f1,2,13,14 $O/shard0/grades.csv
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade merge $O/shard0 --roster $O/roster.csv --out $O/merged.csv 2>&1 | cut -c1-250 | tail -3); echo "[merge exit $?]"
echo "--- merged.csv"; show $O/merged.csv
rm -rf $C
echo "=================== uid 65534"
mkclass $C; U=$(user_copy $C r83-a14-class); rm -rf $C; cp roster.csv $UT_TMP/; chown 65534 $UT_TMP/roster.csv
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "mkdir -p $UT_TMP/out && cd /tmp/u65534 && lumen-grade batch $U --out $UT_TMP/out/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -3; echo [batch exit \$?]; lumen-grade merge $UT_TMP/out/shard0 --roster $UT_TMP/roster.csv --out $UT_TMP/out/merged.csv 2>&1 | cut -c1-250 | tail -3; echo [merge exit \$?]"
echo "--- merged.csv"; show $UT_TMP/out/merged.csv
rm -rf $U $O $UT_TMP/out $UT_TMP/roster.csv
leftovers
