#!/bin/bash
# a7: the answer key's functions, found with gc in the child's memory (no import, no open). Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
echo "== root"; $ROOT_GRADE exercise10 --submission "$HERE" --no-perf | grep -E "Total|✗" | head -4
setup_user_python
D=/tmp/u65534/a7; rm -rf $D; mkdir -p $D; cp "$HERE/exercise10_tiled_attention.py" $D/; chown -R 65534:65534 /tmp/u65534
echo "== uid 65534"; (cd /tmp/u65534 && as_user lumen-grade exercise10 --submission $D --no-perf | grep -E "Total|✗" | head -4)
