#!/bin/bash
# --submission through a symlink loop, and a mistyped folder beside a loop, as root and uid 65534
cd "$(dirname "$0")"; source /work/round75/lib.sh
W=/tmp/u65534/r75-a04; rm -rf $W; mkdir -p $W/exercises; ln -s loop $W/loop; ln -s exercisez $W/exercisez 2>/dev/null
cp /work/scratch20/solutions/exercise1_projection.py $W/exercises/; chown -R 65534:65534 $W
for s in loop loop/x exercisez exercise exercises/nothere; do
  echo "=== root --submission $s"; (cd $W && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise1 --submission $s --no-perf 2>&1 | tail -5; echo "[exit ${PIPESTATUS[0]}]")
  echo "=== uid 65534 --submission $s"; (cd $W && as_user env TMPDIR=$UT_TMP lumen-grade exercise1 --submission $s --no-perf 2>&1 | tail -5; echo "[exit ${PIPESTATUS[0]}]")
done
rm -rf $W
leftovers
