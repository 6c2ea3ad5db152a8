#!/bin/bash
# a4: the course caps hints at level 1; the student reads every level (the remedy, level 4) anyway
HERE=$(cd "$(dirname "$0")" && pwd)
for who in root user; do
  rm -rf $HERE/sub/.lumen
  cmd="cd /work/scratch18; export LUMEN_COURSE=$HERE/lumen-course.toml
  echo '--- text report (capped):'; lumen-grade exercise3 --submission $HERE/sub --no-perf --hints all 2>&1 | sed -n 3,12p
  echo '--- json report, same run options:'; lumen-grade exercise3 --submission $HERE/sub --no-perf --format json 2>/dev/null | python3 -c \"import json,sys; d=json.load(sys.stdin)
for g in d['exercises'][0]['diagnoses']:
    print('allowed', g['allowed'], 'level', g['level'])
    for h in g['hints']: print('  level', h['level'], h['kind'], ':', h['text'][:160])\""
  echo "=== $who"
  if [ $who = root ]; then PATH=/opt/venv18/bin:$PATH bash -c "$cmd"
  else chmod -R a+rwX $HERE; setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "$cmd"; fi
done
