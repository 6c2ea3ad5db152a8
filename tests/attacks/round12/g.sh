#!/bin/bash
# usage: g.sh root|nobody EXERCISE DIR [extra args]  -> prints a one-line summary, keeps full json in DIR/out-<who>.json
who=$1; ex=$2; dir=$3; shift 3
K=/work/scratch-sec12
out=/work/sec12-runs/out; mkdir -p $out; chmod 777 $out
tag=$(basename $dir)-$ex-$who
mkdir -p /tmp/h /tmp/t; chmod 777 /tmp/h /tmp/t
cd $K
if [ "$who" = root ]; then
  timeout 300 $K/.venv-n/bin/python -m grader $ex --submission $dir --format json "$@" > $out/$tag.json 2> $out/$tag.err
else
  timeout 300 setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/h PATH=/usr/bin:/bin TMPDIR=/tmp/t $K/.venv-n/bin/python -m grader $ex --submission $dir --format json "$@" > $out/$tag.json 2> $out/$tag.err
fi
rc=$?
python3 - $out/$tag.json $rc <<'PY'
import json,sys
try:
    r=json.load(open(sys.argv[1]))
except Exception as e:
    print("rc",sys.argv[2],"NO JSON",e); sys.exit()
ex=r["exercises"][0] if r.get("exercises") else {}
errs=[]
for e in r.get("exercises",[]):
    if e.get("error"): errs.append(str(e["error"])[:200])
    for f in (e.get("failures") or e.get("problems") or [])[:3]:
        errs.append(str(f)[:200])
print("rc",sys.argv[2],"score",r.get("score"),"/",r.get("max_score"),"containment",r.get("containment"),r.get("containment_layers"),"tier",(ex.get("tier") or {}).get("id"),"errs",errs[:3])
PY
