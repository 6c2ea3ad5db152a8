#!/bin/bash
HERE=$(cd "$(dirname "$0")" && pwd)
for who in root user; do
  bash $HERE/setup.sh; rm -rf $HERE/out-$who; mkdir -p $HERE/out-$who; chmod a+rwx $HERE/out-$who
  cmd="cd /work/scratch18; lumen-grade batch $HERE/class --no-perf --jobs 2 --timeout 20 --roster $HERE/roster.csv --out $HERE/out-$who/grades.csv; echo exit=\$?; cat $HERE/out-$who/grades.csv"
  echo "=== $who"
  if [ $who = root ]; then PATH=/opt/venv18/bin:$PATH bash -c "$cmd"
  else setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "$cmd"; fi
done
