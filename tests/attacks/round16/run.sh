#!/bin/bash
# usage: run.sh <attack/variant> -> prints root and uid65534 score + failing messages
V=$1; D=/work/round16/$V; T=$(echo $V | tr / _)
cd /work/scratch14
s=$(date +%s.%N); /opt/venv14/bin/lumen-grade exercise10 --submission $D --no-perf --format json --output /work/round16/out/$T.root.json >/dev/null 2>/work/round16/out/$T.root.err; e=$(date +%s.%N)
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv14/bin:/usr/bin:/bin bash -c "cd /work/scratch14; lumen-grade exercise10 --submission $D --no-perf --format json --output /tmp/u65534/$T.user.json" >/dev/null 2>/work/round16/out/$T.user.err; f=$(date +%s.%N)
cp /tmp/u65534/$T.user.json /work/round16/out/ 2>/dev/null
/opt/venv14/bin/python /work/round16/summ.py /work/round16/out/$T.root.json "root $(echo "$e-$s"|bc)s"
/opt/venv14/bin/python /work/round16/summ.py /work/round16/out/$T.user.json "user $(echo "$f-$e"|bc)s"
