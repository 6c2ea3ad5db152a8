#!/bin/bash
# reproduce: a class of three (alice: a01's trick, bob: honest, mallory: tries to reach bob and the gradebook), batch as root and as 65534
cd "$(dirname "$0")"; source /work/round32/lib.sh
rm -rf out; mkdir out
echo "=== root batch"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$OLDPWD/subs" --no-perf --out "$OLDPWD/out/grades.csv" --jobs 2); echo "[exit $?]"
cat out/grades.csv; md5sum subs/bob/exercise1_projection.py
python3 -c "import json; d=json.load(open('out/grades/mallory.json')); print([e.get('output','')[:1500] for e in d.get('exercises',[])][:1])" 2>&1 | tr ',' '\n' | head -30
U=$(user_copy "$PWD/subs" class-a16); mkdir -p /tmp/u65534/a16out; chown 65534 /tmp/u65534/a16out
echo "=== uid 65534 batch"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch "$U" --no-perf --out /tmp/u65534/a16out/grades.csv --jobs 2); echo "[exit $?]"
cat /tmp/u65534/a16out/grades.csv; md5sum "$U/bob/exercise1_projection.py"
rm -rf /tmp/u65534/a16out; leftovers
