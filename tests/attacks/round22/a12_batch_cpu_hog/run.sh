#!/bin/bash
# a12: a CPU hog graded beside a classmate in `lumen-grade batch -j 2` (root batch; the children run as uid 65534).
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
B=$(mktemp -d); mkdir -p $B/with/class/alice $B/with/class/mallory $B/without/class/alice
for w in with without; do cp /work/scratch20/solutions/exercise3_scaling.py /work/scratch20/solutions/exercise10_tiled_attention.py $B/$w/class/alice/; done
cp "$HERE/exercise3_scaling.py" $B/with/class/mallory/
for w in without with; do echo "== batch $w mallory"; (cd $B/$w && $ROOT_GRADE batch class --out grades.csv --timeout 60 -j 2 | tail -3)
  python3 -c "
import json; d=json.load(open('$B/$w/grades/alice.json')); r=d['report']
print('alice:', d['status'], d['seconds'], 's', r['score'], [(e['id'], e['score'], (e.get('tier') or {}).get('id'), (e.get('tier') or {}).get('ratio')) for e in r['exercises'] if e.get('handed_in')])"; done
rm -rf $B
