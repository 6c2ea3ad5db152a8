#!/bin/bash
# reproduce: batch-grade an odd class folder as root and as uid 65534
cd "$(dirname "$0")"; source /work/round47/lib.sh
C="$PWD/class"; echo "=== root"; rm -rf /tmp/r47b_root; mkdir -p /tmp/r47b_root
(cd /tmp && TMPDIR=$RT_TMP timeout 900 /opt/venv20/bin/lumen-grade batch "$C" --out /tmp/r47b_root/grades.csv --no-perf --timeout 20); echo "[exit $?]"
cat /tmp/r47b_root/grades.csv
echo "=== uid 65534"; U=$(user_copy "$PWD/class" r47-batch-class); mkdir -p /tmp/u65534/r47b_out; chown 65534 /tmp/u65534/r47b_out
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 900 lumen-grade batch "$U" --out /tmp/u65534/r47b_out/grades.csv --no-perf --timeout 20); echo "[exit $?]"
cat /tmp/u65534/r47b_out/grades.csv
ls -la "$U"/*; rm -rf "$U" /tmp/u65534/r47b_out
leftovers
