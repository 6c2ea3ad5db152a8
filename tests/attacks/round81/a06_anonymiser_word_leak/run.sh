#!/bin/bash
# batch + class-report with a roster, as root and as uid 65534; shows what the "anonymised" examples print
cd "$(dirname "$0")"; source /work/round81/lib.sh
echo "=== root"; rm -rf out-root; mkdir out-root
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$OLDPWD/class" --out "$OLDPWD/out-root/grades.csv" --no-perf -j 1 --roster "$OLDPWD/roster.csv" --class-report --stubs /work/scratch20/exercises; echo "[exit code $?]")
grep -o '"lines": \[[^]]*\]' out-root/class-report.json | head; grep -io "[a-z0-9_]*lovelace[a-z0-9_]*\|[a-z0-9_]*turing[a-z0-9_]*\|[a-z0-9_]*grace[a-z0-9_]*" out-root/class-report.html | sort | uniq -c
echo "=== uid 65534"; U=$(user_copy "$PWD" r81-a06); 
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch "$U/class" --out "$U/out-user/grades.csv" --no-perf -j 1 --roster "$U/roster.csv" --class-report --stubs /work/scratch20/exercises; echo "[exit code $?]")
grep -o '"lines": \[[^]]*\]' $U/out-user/class-report.json | head; grep -io "[a-z0-9_]*lovelace[a-z0-9_]*\|[a-z0-9_]*turing[a-z0-9_]*\|[a-z0-9_]*grace[a-z0-9_]*" $U/out-user/class-report.html | sort | uniq -c
rm -rf "$U"; leftovers
