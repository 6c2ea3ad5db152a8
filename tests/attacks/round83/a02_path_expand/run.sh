#!/bin/bash
# a02: a student's exercise files nested at depth 14 under folders of 250-character names; each
# function raises a ValueError whose message repeats "submission/exerciseN_*.py" (the staged name,
# which batch's as_in_folder replaces in every string by the student's ~3500-character path).
# Class: alice (the instructor solutions), mallory (the above). batch --shard 0/1, then merge.
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
mkclass() {  # mkclass DIR
  rm -rf "$1"; mkdir -p "$1/alice"; cp /work/scratch20/solutions/exercise*.py "$1/alice/"
  python3 gen.py "$1/mallory" 14 250 >/dev/null
}
report() {  # report OUTDIR
  echo "--- grades.csv (student,status,total,max)"; python3 - "$1" <<'PY'
import csv, sys, os
for r in csv.DictReader(open(os.path.join(sys.argv[1], "grades.csv"))):
    print(" ", r["student"], r["status"], r["total"], r["max_score"], r["message"][:100])
PY
  ls -la "$1/grades/" | awk '{print "  ", $5, $9}' | grep json
}
for level in root user; do
  echo "=================== $level"
  if [ $level = root ]; then
    C=$PWD/class; O=$RT_TMP/out; mkclass "$C"; mkdir -p $O
    (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$C" --out $O/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 | tail -3); echo "[batch exit $?]"
    report $O/shard0
    (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade merge $O/shard0 --out $O/merged.csv 2>&1 | tail -5); echo "[merge exit $?]"
    cat $O/merged.csv | cut -c1-160
    rm -rf "$C"
  else
    mkclass /tmp/r83a02class; C=$(user_copy /tmp/r83a02class r83-a02-class); rm -rf /tmp/r83a02class
    as_user env TMPDIR=$UT_TMP bash -o pipefail -c "mkdir -p $UT_TMP/out && cd /tmp/u65534 && lumen-grade batch $C --out $UT_TMP/out/shard0/grades.csv --shard 0/1 --no-perf --timeout 20 -j 2 | tail -3; echo [batch exit \$?]"
    report $UT_TMP/out/shard0
    as_user env TMPDIR=$UT_TMP bash -o pipefail -c "cd /tmp/u65534 && lumen-grade merge $UT_TMP/out/shard0 --out $UT_TMP/out/merged.csv 2>&1 | tail -5; echo [merge exit \$?]; cut -c1-160 $UT_TMP/out/merged.csv"
    rm -rf "$C"
  fi
done
rm -rf $RT_TMP/out $UT_TMP/out
leftovers
