#!/bin/bash
# the leaker through gradescope-run (first upload, default course policy), as root and as uid 65534
cd "$(dirname "$0")"; source /work/round66/lib.sh
G=/tmp/r66-gs-root; rm -rf $G; mkdir -p $G/submission; cp ../sub/exercise5_softmax.py $G/submission/
echo "=== root"; root_grade gradescope-run --root $G --exercise exercise5 --no-perf > /dev/null
/opt/venv20/bin/python -c "
import json; r=json.load(open('$G/results/results.json')); import re
t=json.dumps(r); print('score', r['score'], '| hidden inputs in results.json:', re.findall(r'q\(2, 5, 4\) torch.float64[^|\"]*', t)[:2])"
rm -rf $G
U=/tmp/u65534/r66-gs-user; rm -rf $U; mkdir -p $U/submission; cp ../sub/exercise5_softmax.py $U/submission/; chown -R 65534:65534 $U
echo "=== uid 65534"; user_grade gradescope-run --root $U --exercise exercise5 --no-perf > /dev/null
/opt/venv20/bin/python -c "
import json; r=json.load(open('$U/results/results.json')); import re
t=json.dumps(r); print('score', r['score'], '| hidden inputs in results.json:', re.findall(r'q\(2, 5, 4\) torch.float64[^|\"]*', t)[:2])"
rm -rf $U
leftovers
