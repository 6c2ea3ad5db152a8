#!/bin/bash
# reproduce: grade exercise3 from ./sub as root (text -v, and gradescope with the default hidden visibility) and as uid 65534
cd "$(dirname "$0")"; source /work/round31/lib.sh
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf -v
root_grade exercise3 --submission "$PWD/sub" --no-perf --format gradescope --output /tmp/a10-gradescope.json > /dev/null
echo "--- root gradescope: visible test outputs and top-level output"
/opt/venv20/bin/python -c "
import json; r = json.load(open('/tmp/a10-gradescope.json'))
print('TOP:', r['output'])
for t in r['tests']:
    print(t['visibility'], t['name'], t['score'], '/', t['max_score'], '|', t['output'][:600].replace(chr(10), ' / '))"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-a10); user_grade exercise3 --submission "$U" --no-perf -v
leftovers
