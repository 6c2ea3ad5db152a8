#!/bin/bash
# a1: the student's code rewrites the child's Session.call (found by walking frames) to forge replies
HERE=$(cd "$(dirname "$0")" && pwd)
cd /work/scratch18
for who in root user; do
  for v in honest_wrong forged; do
    echo "=== $who / $v"
    if [ $who = root ]; then
      PATH=/opt/venv18/bin:$PATH lumen-grade exercise4 --submission $HERE/$v --no-perf 2>&1 | head -${LINES_:-12}
    else
      setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin \
        bash -c "set -o pipefail; cd /work/scratch18; lumen-grade exercise4 --submission $HERE/$v --no-perf 2>&1 | head -${LINES_:-12}"
    fi
    echo "exit=${PIPESTATUS[0]}"
  done
done
