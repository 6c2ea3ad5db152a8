#!/bin/bash
# a1 (second form): the student's code replaces the child's allocation-probe op to under-report
HERE=$(cd "$(dirname "$0")" && pwd)
for who in root user; do
  for v in honest_wrong_ex1 forged_ex1; do
    echo "=== $who / $v"
    cmd="set -o pipefail; cd /work/scratch18; lumen-grade exercise1 --submission $HERE/$v --no-perf 2>&1 | head -8"
    if [ $who = root ]; then PATH=/opt/venv18/bin:$PATH bash -c "$cmd"
    else setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "$cmd"; fi
    echo "exit=$?"
  done
done
