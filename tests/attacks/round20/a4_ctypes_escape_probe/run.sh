#!/bin/bash
# a4 (held): C-level file access from the confined child: answer key, hidden tests, /proc/1/environ, writes
cd "$(dirname "$0")"; . ../common.sh; setup_user_python; chmod -R a+rX .
D=$PWD
{
echo "== root"; (cd /tmp && $ROOT_GRADE exercise3 --submission "$D/submission" --no-perf); echo "exit=$?"
echo "== uid 65534"; (cd /tmp && as_user lumen-grade exercise3 --submission "$D/submission" --no-perf); echo "exit=$?"
echo "== left behind?"; ls -la /tmp/pwn_probe /work/round20/pwn_probe 2>&1
} 2>&1 | tee result.txt
