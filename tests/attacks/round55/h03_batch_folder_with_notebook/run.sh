#!/bin/bash
# alice hands in the released exercises/ folder: the .py stubs untouched beside it, her work in
# notebooks/exercise3_scaling.ipynb (the notebook path of the release). Graded by `batch` (as on Gradescope).
cd "$(dirname "$0")"; source /work/round55/lib.sh
echo "=== root"
rm -rf /tmp/r55-h03-root && mkdir -p /tmp/r55-h03-root
(cd /tmp/r55-h03-root && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$OLDPWD/class" --out /tmp/r55-h03-root/grades.csv --no-perf -j 1); echo "[exit $?]"
cat /tmp/r55-h03-root/grades.csv; /opt/venv20/bin/python -c "
import json; r=json.load(open('/tmp/r55-h03-root/grades/alice.json')); print(r.get('files')); print([ (e['id'], e.get('points'), e.get('file')) for e in r['report']['exercises'] if e['id']=='exercise3'])"
echo "=== uid 65534"
U=$(user_copy "$PWD/class" r55-h03-class); mkdir -p /tmp/u65534/r55-h03-out; chown 65534 /tmp/u65534/r55-h03-out
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch "$U" --out /tmp/u65534/r55-h03-out/grades.csv --no-perf -j 1); echo "[exit $?]"
cat /tmp/u65534/r55-h03-out/grades.csv
rm -rf "$U" /tmp/u65534/r55-h03-out /tmp/r55-h03-root
leftovers
echo "=== control: the same notebook graded on its own (root, lumen-grade exercise3 --notebook)"
(cd /tmp && TMPDIR=/tmp /opt/venv20/bin/lumen-grade exercise3 --notebook "$OLDPWD/class/alice/exercises/notebooks/exercise3_scaling.ipynb" --no-perf); echo "[exit $?]"
rm -rf "$OLDPWD/class/alice/exercises/notebooks/.lumen"
