#!/bin/bash
# a10: what the instructor's other class outputs make of a03's and a05's students: `batch --feedback` (a page per
# student) and `class-report` (records read back). Class: alice (exercise3 solution), mallory (a03: the solution +
# N=6000 ignored notebooks under a ~3500-char chain), trudy (a05: no exercise file, N=6000 misnamed files).
set -o pipefail; cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-6000}
mkclass() { rm -rf "$1"; mkdir -p "$1/alice"; cp /work/scratch20/solutions/exercise3_scaling.py "$1/alice/"
  python3 gen_copies.py "$1/mallory" $N; python3 gen_misnamed.py "$1/trudy" $N; }
show() {  # show OUT
  ls -la $1/fb | awk '/html/{print "   feedback page", $5, $9}'
  python3 - "$1/cr/class-report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
text = json.dumps(d)
print("   class-report.json:", len(text), "bytes; mentions mallory:", "mallory" in text, "trudy:", "trudy" in text, "alice:", "alice" in text)
PY
}
echo "=================== root"
C=/tmp/r83a10-class; O=$RT_TMP/out; mkclass $C; mkdir -p $O
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out $O/grades.csv --feedback $O/fb --no-perf --timeout 20 -j 2 2>&1 | tail -4); echo "[batch exit $?]"
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade class-report $O/grades --out $O/cr 2>&1 | cut -c1-250 | tail -3); echo "[class-report exit $?]"
show $O
echo "=================== uid 65534"
U=$(user_copy $C r83-a10-class); rm -rf $C
as_user env TMPDIR=$UT_TMP bash -o pipefail -c "mkdir -p $UT_TMP/out && cd /tmp/u65534 && lumen-grade batch $U --out $UT_TMP/out/grades.csv --feedback $UT_TMP/out/fb --no-perf --timeout 20 -j 2 2>&1 | tail -4; echo [batch exit \$?]; lumen-grade class-report $UT_TMP/out/grades --out $UT_TMP/out/cr 2>&1 | cut -c1-250 | tail -3; echo [class-report exit \$?]"
show $UT_TMP/out
rm -rf $U $O $UT_TMP/out
leftovers
