#!/bin/bash
# a3: exercise 4's child (running beside exercise 3's timing) sees the timing children in /proc and
# loads the other core except while the student's own timing child (renamed STUDENT) runs
HERE=$(cd "$(dirname "$0")" && pwd)
for who in root user; do
  for v in baseline attack; do
    cmd="cd /work/scratch18; lumen-grade all --submission $HERE/$v --format json 2>/dev/null | python3 -c \"import json,sys; d=json.load(sys.stdin); e=d['exercises'][2]; t=e['tier']; print('$who $v', e['id'], e['score'], t.get('id'), t.get('ratio'), t.get('rounds'))\""
    if [ $who = root ]; then PATH=/opt/venv18/bin:$PATH bash -c "$cmd"
    else setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "$cmd"; fi
  done
done
