#!/bin/bash
# a battery of reads/writes/limits from the child at import; the printed results come from the JSON report
cd "$(dirname "$0")"; source /work/round59/lib.sh
show() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('level', r.get('containment'), 'score', r['score']); [print(e.get('output')) for e in r['exercises']]" $1; }
echo "=== root"; (D=$PWD; cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise3 --submission $D/sub --no-perf --format json > $RT_TMP.json); show $RT_TMP.json
echo "=== uid 65534"; U=$(user_copy $PWD/sub r59a04); (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade exercise3 --submission $U --no-perf --format json > $UT_TMP.json); show $UT_TMP.json; rm -rf $U
rm -f $RT_TMP.json $UT_TMP.json; leftovers
