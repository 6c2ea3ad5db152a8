#!/bin/bash
# a03: a class of two: alice (exercise3 solution) and mallory (the same solution at the top of her folder,
# plus N=6000 empty notebooks exercise3_<200 z>_K.ipynb at the bottom of a ~3500-character folder chain).
# Every ignored copy is named with its whole path in mallory's record (batch's notes, and the report's
# `ignored`): ~7.5 KB per copy. batch --shard 0/1, the same batch again (resume), then merge, at both levels.
# N=20000 bash run.sh: result_N20000.txt (without the resume step)
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-6000}
mkclass() { rm -rf "$1"; python3 gen.py "$1/mallory" $N; mkdir -p "$1/alice"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/alice/"; }
report() {
  echo "--- $1/grades.csv"; python3 - "$1" <<'PY'
import csv, sys, os
for r in csv.DictReader(open(os.path.join(sys.argv[1], "grades.csv"))):
    print(" ", r["student"], r["status"], r["total"], r["max_score"], r["message"][:100])
PY
  ls -la "$1/grades/" | awk '/json/{print "  ", $5, $9}'
}
echo "=================== root"
C=/tmp/r83a03-class; O=$RT_TMP/out; mkclass $C; mkdir -p $O
(cd /tmp && TMPDIR=$RT_TMP /usr/bin/time -f "batch max RSS %M KB, %e s" /opt/venv20/bin/lumen-grade batch $C --out $O/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -4); echo "[batch exit $?]"
report $O/shard0
echo "--- the same batch again (resume: students with a readable record are skipped)"
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out $O/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | grep -v "^$" | cut -c1-200); echo "[batch exit $?]"
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade merge $O/shard0 --out $O/merged.csv 2>&1 | cut -c1-300 | tail -3); echo "[merge exit $?]"
cut -d, -f1,2,13,14 $O/merged.csv
rm -rf $C
echo "=================== uid 65534"
mkclass $C; U=$(user_copy $C r83-a03-class); rm -rf $C
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "mkdir -p $UT_TMP/out && cd /tmp/u65534 && lumen-grade batch $U --out $UT_TMP/out/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | tail -3; echo [batch exit \$?]"
report $UT_TMP/out/shard0
echo "--- the same batch again (resume)"
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade batch $U --out $UT_TMP/out/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 2>&1 | grep -v '^$' | cut -c1-200; echo [batch exit \$?]"
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade merge $UT_TMP/out/shard0 --out $UT_TMP/out/merged.csv 2>&1 | cut -c1-300 | tail -3; echo [merge exit \$?]; cut -d, -f1,2,13,14 $UT_TMP/out/merged.csv"
rm -rf $U $O $UT_TMP/out
leftovers
