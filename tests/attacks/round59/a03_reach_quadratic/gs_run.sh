#!/bin/bash
# Gradescope's flow (root, as Gradescope runs it): gradescope-run --timeout 5 (the kit's run limit: 60 + 10*5 s
# = 110 s, plus its overrun) on an upload holding trick15000.py as exercise3_scaling.py; wall clock capped at 420 s
cd "$(dirname "$0")"; R=/tmp/r59a03gs; rm -rf $R; mkdir -p $R/submission $R/results
cp gs/trick15000.py $R/submission/exercise3_scaling.py
S=$(date +%s); (cd $R && TMPDIR=/tmp timeout 420 /opt/venv20/bin/lumen-grade gradescope-run --root $R --timeout 5 --no-perf > gs_stdout.txt 2>&1); echo "exit $? after $(( $(date +%s) - S )) s"
ls -la $R/results; head -c 600 $R/results/results.json 2>/dev/null; tail -3 $R/gs_stdout.txt
