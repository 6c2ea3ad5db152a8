#!/bin/bash
# a6: does a classmate's CPU hog (-j 2: graded at the same time) change alice's tiers or points?
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
show() { python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["report"]["exercises"]:
    if e["score"]:
        print("   alice", e["id"], e["score"], "/", e["max_score"], "tier:", (e.get("tier") or {}).get("name"), (e.get("tier") or {}).get("ratio"))
PY
}
for mode in control attack; do
  C=/tmp/a6-class-$mode; "$HERE/make_class.sh" $C $mode
  echo "===== ROOT batch, bob = $mode"
  (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch $C --out /tmp/a6-root-$mode/grades.csv -j 2 --timeout 45 --force; echo "[exit $?]") 2>&1 | tail -4
  cut -d, -f1,2,7,8,13,14,15,17 /tmp/a6-root-$mode/grades.csv; show /tmp/a6-root-$mode/grades/alice.json
  UC=/tmp/u65534/a6-class-$mode; "$HERE/make_class.sh" $UC $mode; chown -R 65534:65534 $UC; mkdir -p /tmp/u65534/a6-out-$mode; chown 65534 /tmp/u65534/a6-out-$mode
  echo "===== USER batch, bob = $mode"
  (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch $UC --out /tmp/u65534/a6-out-$mode/grades.csv -j 2 --timeout 45 --force; echo "[exit $?]") 2>&1 | tail -4
  cut -d, -f1,2,7,8,13,14,15,17 /tmp/u65534/a6-out-$mode/grades.csv; show /tmp/u65534/a6-out-$mode/grades/alice.json
  rm -rf $C $UC /tmp/a6-root-$mode /tmp/u65534/a6-out-$mode
done
leftovers
