#!/bin/bash
# a05: a class of three: alice and bob (exercise3 solution), mallory (no exercise file; N=6000 empty files
# named near exercise 3's, exercise3_<200 z>_K.py, under a ~3500-character folder chain). mallory's row is
# "no files" and its message names each file with its whole path: the gradebook CSV (what an LMS imports),
# rewritten after every student, carries it. batch --shard 0/1, class-report, then merge, at both levels.
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-6000}
mkclass() { rm -rf "$1"; python3 gen.py "$1/mallory" $N; for s in alice bob; do mkdir -p "$1/$s"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/$s/"; done; }
report() {  # report CSV: its rows, then the same file read by Python's csv module with its default field limit
  echo "--- $1: $(wc -c < $1) bytes"; python3 - "$1" <<'PY'
import csv, sys
limit = csv.field_size_limit(1 << 31)
for r in csv.DictReader(open(sys.argv[1])):
    print(" ", r["student"], r["status"], r["total"], r["max_score"], "message:", len(r["message"]), "chars:", r["message"][:90])
csv.field_size_limit(limit)
try:
    print("  read with csv's default field limit:", len(list(csv.DictReader(open(sys.argv[1])))), "rows")
except csv.Error as error:
    print("  read with csv's default field limit: csv.Error:", error)
PY
  ls -la "${1%.csv}/" | awk '/json/{print "  ", $5, $9}'
}
echo "=================== root"
C=/tmp/r83a05-class; O=$RT_TMP/out; mkclass $C; mkdir -p $O
(cd /tmp && TMPDIR=$RT_TMP /usr/bin/time -f "batch max RSS %M KB, %e s" /opt/venv20/bin/lumen-grade batch $C --out $O/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -5); echo "[batch exit $?]"
report $O/shard0/grades.csv
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade class-report $O/shard0/grades --out $O/cr 2>&1 | cut -c1-300 | tail -3); echo "[class-report exit $?]"; ls -la $O/cr 2>&1 | awk '{print "  ", $5, $9}'
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade merge $O/shard0 --out $O/merged.csv 2>&1 | cut -c1-300 | tail -3); echo "[merge exit $?]"
report $O/merged.csv
echo "=================== uid 65534"
U=$(user_copy $C r83-a05-class); rm -rf $C
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "mkdir -p $UT_TMP/out && cd /tmp/u65534 && lumen-grade batch $U --out $UT_TMP/out/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -4; echo [batch exit \$?]"
report $UT_TMP/out/shard0/grades.csv
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade class-report $UT_TMP/out/shard0/grades --out $UT_TMP/out/cr 2>&1 | cut -c1-300 | tail -3; echo [class-report exit \$?]"; ls -la $UT_TMP/out/cr 2>&1 | awk '{print "  ", $5, $9}'
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade merge $UT_TMP/out/shard0 --out $UT_TMP/out/merged.csv 2>&1 | cut -c1-300 | tail -3; echo [merge exit \$?]"
report $UT_TMP/out/merged.csv
rm -rf $U $O $UT_TMP/out
leftovers
