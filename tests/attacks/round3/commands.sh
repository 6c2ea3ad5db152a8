#!/usr/bin/env bash
# Exact manual commands for the single-file attacks (run.py does all of this, plus the batch ones).
# usage: bash commands.sh KIT ROOT_PY USER_PY ATTACK     (ATTACK: probe thread_bomb disk_fill inode_bomb
#        deep_junk hang sock_kmem unix_connect)
KIT=${1:-/work/scratch-attack}; PY=${2:-$KIT/.venv/bin/python}; PYU=${3:-$KIT/.venv-u/bin/python}; A=${4:-probe}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/u65534 /tmp/atk-man-root /tmp/atk-man-user && chown 65534:65534 /tmp/u65534 /tmp/atk-man-user
echo "== $A as root"
(cd /tmp && ulimit -u 3000 && KIT_HINT=$KIT TMPDIR=/tmp/atk-man-root "$PY" -m grader exercise3 \
   --submission "$HERE/$A/sub" --no-perf --format json | python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["exercises"][0]; o=e["output"] or ""; print(d["score"], d["containment"], d["containment_layers"]); print(o[o.find("ATTACK"):][:600] or o[o.find("PROBE"):][:1500])')
echo "   left in TMPDIR: $(find /tmp/atk-man-root -mindepth 1 | wc -l)"
echo "== $A as uid 65534"
(cd /tmp && ulimit -u 3000 && setpriv --reuid 65534 --regid 65534 --clear-groups env HOME=/tmp/u65534 \
   KIT_HINT=$KIT TMPDIR=/tmp/atk-man-user "$PYU" -m grader exercise3 --submission "$HERE/$A/sub" --no-perf --format json \
   | python3 -c 'import json,sys; d=json.load(sys.stdin); e=d["exercises"][0]; o=e["output"] or ""; print(d["score"], d["containment"], d["containment_layers"]); print(o[o.find("ATTACK"):][:600] or o[o.find("PROBE"):][:1500])')
echo "   left in TMPDIR: $(find /tmp/atk-man-user -mindepth 1 | wc -l)"
chmod -R u+rwx /tmp/atk-man-root /tmp/atk-man-user 2>/dev/null; rm -rf /tmp/atk-man-root /tmp/atk-man-user
