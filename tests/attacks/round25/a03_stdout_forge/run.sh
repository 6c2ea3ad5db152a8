#!/bin/bash
# The child writes a forged JSON report to fds 0/1/2 and to its parents' stdout via /proc: the JSON
# report (--format json to stdout, as batch reads it) must stay the grader's.
cd "$(dirname "$0")"; HERE=$PWD; source /work/round25/lib.sh
echo "=== root: JSON report on stdout"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise3 --submission $HERE/sub --no-perf --format json 2>/dev/null) | python3 -c "
import json,sys; r=json.load(sys.stdin); e=r['exercises'][0]; print('parsed the report: score', r['score'], '/', r['max_score']); print(e['output'])"
d=$(user_copy sub a03)
echo "=== user: JSON report on stdout"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade exercise3 --submission $d --no-perf --format json 2>/dev/null) | python3 -c "
import json,sys; r=json.load(sys.stdin); e=r['exercises'][0]; print('parsed the report: score', r['score'], '/', r['max_score']); print(e['output'])"
leftovers
