#!/bin/bash
# usage: grade.sh DIR [root|user] [extra args]
DIR=$1; WHO=$2; shift 2
OUT=$DIR/report-$WHO.json
if [ "$WHO" = root ]; then
  cd /work/scratch14 && /opt/venv14/bin/lumen-grade exercise10 --submission $DIR --format json --output $OUT "$@"
else
  setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv14/bin:/usr/bin:/bin bash -c "cd /work/scratch14; lumen-grade exercise10 --submission $DIR --format json --output $OUT $*"
fi
