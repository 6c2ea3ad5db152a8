#!/bin/bash
# usage: run.sh DIR NAME  -> runs root and uid 65534, prints score + memory test message
D=$1; N=$2
cd /work/scratch14
s=$(date +%s)
/opt/venv14/bin/lumen-grade exercise10 --submission $D --no-perf --format json --output /work/round15/out/$N.root.json > /work/round15/out/$N.root.log 2>&1
m=$(date +%s)
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv14/bin:/usr/bin:/bin bash -c "cd /work/scratch14; lumen-grade exercise10 --submission $D --no-perf --format json --output /tmp/u65534/$N.user.json" > /work/round15/out/$N.user.log 2>&1
cp /tmp/u65534/$N.user.json /work/round15/out/ 2>/dev/null
e=$(date +%s)
echo "$N root $((m-s))s user $((e-m))s"
