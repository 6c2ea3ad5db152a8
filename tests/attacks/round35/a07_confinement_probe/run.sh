#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534; print the probe's output from the JSON report
cd "$(dirname "$0")"; source /work/round35/lib.sh; bash ./setup.sh
show() { head -n -1 | python3 -c "import json,sys; r=json.load(sys.stdin); e=r['exercises'][0]; print('score', e['score'], '/', e['max_score'], 'containment', r['containment'], r['containment_layers']); print(e['output'])"; }
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf --format json 2>&1 | show
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); user_grade exercise3 --submission "$U" --no-perf --format json 2>&1 | show
echo "=== files left behind"; ls -la /tmp/u65534/a07-victim /tmp/a07-* /dev/shm/a07-* /var/tmp/a07-* /work/scratch20/grader/a07-* "$PWD"/sub/a07-* "$U"/a07-* 2>&1 | grep -v "No such"
rm -rf /tmp/u65534/a07-victim
leftovers
