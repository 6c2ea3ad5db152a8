#!/bin/bash
# reproduce: Gradescope's entry point on an upload with a symlink to /dev/zero as a .py and as a
# notebook, a FIFO named as an exercise, a folder named as a notebook, a symlinked folder, and
# odd previous_submissions in submission_metadata.json
cd "$(dirname "$0")"; bash ./setup.sh; source /work/round27/lib.sh
echo "=== root"; rm -rf /tmp/ag-root; cp -a sub /tmp/ag-root
(cd /tmp && TMPDIR=$RT_TMP timeout 300 /opt/venv20/bin/lumen-grade gradescope-run --root /tmp/ag-root --no-perf); echo "[exit $?]"
python3 -c "import json; r=json.load(open('/tmp/ag-root/results/results.json')); print('score', r['score'], 'tests', len(r['tests'])); print(r['output'][-700:])"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" ag-a04)
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 300 lumen-grade gradescope-run --root "$U" --no-perf); echo "[exit $?]"
python3 -c "import json; r=json.load(open('$U/results/results.json')); print('score', r['score'], 'tests', len(r['tests'])); print(r['output'][-700:])"
leftovers
