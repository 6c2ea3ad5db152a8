#!/bin/bash
cd "$(dirname "$0")"; source /work/round72/lib.sh
for ex in exercise4 exercise5; do
echo "=== root $ex"; /usr/bin/time -f "%e s %M KB" bash -c "cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade $ex --submission $PWD/sub --no-perf 2>&1 | tail -25"
echo "=== uid 65534 $ex"; U=$(user_copy "$PWD/sub" r72-a04); user_grade $ex --submission "$U" --no-perf 2>&1 | tail -25
done
leftovers
