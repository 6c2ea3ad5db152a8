#!/bin/bash
# a12: notebooks of many empty cells (each under the 16 MiB cap): the judge parses and validates each
# several times (owner check, ladder digest, prepare) outside any time limit: --total-timeout 10 is not held.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
[ -d "$HERE/attack" ] || (cd "$HERE" && python3 make.py)
for who in control attack; do
  echo "===== ROOT $who: lumen-grade all --timeout 5 --total-timeout 10"
  (cd /tmp && TMPDIR=$RT_TMP /usr/bin/time -f "wall %e s, peak RSS %M KB" timeout 900 /opt/venv20/bin/lumen-grade all --submission "$HERE/$who" --no-perf --timeout 5 --total-timeout 10 2>&1 | tail -3; echo "[exit ${PIPESTATUS[0]}]")
  U=$(user_copy "$HERE/$who" a12-$who)
  echo "===== USER $who"
  (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP /usr/bin/time -f "wall %e s, peak RSS %M KB" timeout 900 lumen-grade all --submission "$U" --no-perf --timeout 5 --total-timeout 10 2>&1 | tail -3; echo "[exit ${PIPESTATUS[0]}]")
  rm -rf "$U"
done
leftovers
