#!/bin/bash
# batch of one student whose exercise9 has both the patterned repeated_tokens (a01) and the tabled find_heads (a02)
cd "$(dirname "$0")"; source /work/round81/lib.sh
echo "=== root"; rm -rf out-root
(cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch "$OLDPWD/class" --out "$OLDPWD/out-root/grades.csv" --no-perf -j 1; echo "[exit code $?]")
cat out-root/grades.csv
echo "=== uid 65534"; U=$(user_copy "$PWD" r81-a10)
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch "$U/class" --out "$U/out-user/grades.csv" --no-perf -j 1; echo "[exit code $?]")
cat $U/out-user/grades.csv
rm -rf "$U"; leftovers
