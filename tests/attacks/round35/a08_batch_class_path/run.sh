#!/bin/bash
# reproduce: `lumen-grade batch` over class/ as root and as uid 65534 (-j 1, --no-perf); print the gradebook
cd "$(dirname "$0")"; source /work/round35/lib.sh; bash ./setup.sh
cols() { python3 -c "import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); keys=[k for k in r[0] if k in ('student','status','exercise1','exercise8','exercise10','total')]; [print({k: row[k] for k in keys}) for row in r]" "$1"; }
echo "=== root"; rm -rf out-root; mkdir out-root
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$OLDPWD/class" --out "$OLDPWD/out-root/grades.csv" -j 1 --no-perf); echo "[exit code $?]"
cols out-root/grades.csv
echo "=== uid 65534"; U=$(user_copy "$PWD/class" class-a08)
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch "$U" --out /tmp/u65534/a08-out/grades.csv -j 1 --no-perf); echo "[exit code $?]"
cols /tmp/u65534/a08-out/grades.csv
rm -rf /tmp/u65534/a08-out "$U"
leftovers
