#!/bin/bash
# a5: a notebook of the untouched stub, the answer hidden in its FILE NAME between \r: graded 21/21
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
python3 "$HERE/make.py"
echo "### the notebook's cells, run in order as Jupyter does:"
(cd /tmp && /opt/venv20/bin/python -c "
import json,glob,torch; nb=json.load(open(glob.glob('$HERE/sub/*.ipynb')[0])); g={'__name__':'nb'}
[exec(c['source'], g) for c in nb['cells']]
try: g['scaled_scores'](torch.ones(2,4), torch.ones(3,4)); print('cells work')
except Exception as e: print('cells fail:', type(e).__name__)")
echo "### root: lumen-grade exercise3 --submission sub"; root_grade exercise3 --submission "$HERE/sub" --no-perf 2>&1 | grep -v '^$'
P=$(user_copy "$HERE/sub" a5); echo "### uid 65534"; user_grade exercise3 --submission "$P" --no-perf 2>&1 | grep -v '^$'
echo "### root: lumen-grade batch (class folder, student 'alice' holds the notebook in a sub-folder)"
C=/tmp/a5class; rm -rf $C; mkdir -p $C/alice/hw; cp "$HERE"/sub/*.ipynb $C/alice/hw/
root_grade batch $C --out /tmp/a5out/grades.csv --no-perf -j 1 2>&1 | tail -3
rm -f /tmp/a5out/grades/*; cut -d, -f1-6 /tmp/a5out/grades.csv; rm -rf /tmp/a5out
echo "### uid 65534: batch"; CU=$(user_copy $C a5class)
user_grade batch $CU --out /tmp/u65534/a5out/grades.csv --no-perf -j 1 --force 2>&1 | tail -2; cut -d, -f1-6 /tmp/u65534/a5out/grades.csv; rm -rf /tmp/u65534/a5out
leftovers
