#!/bin/bash
# a10: the stand-in device check forged through the import's frames (exercise 10). Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for v in . control; do echo "== root: $v"; $ROOT_GRADE exercise10 --submission "$HERE/$v" --no-perf | grep -E "Total|✗ test" -A1; done
setup_user_python
D=/tmp/u65534/a10; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for v in . control; do echo "== uid 65534: $v"; (cd /tmp/u65534 && as_user lumen-grade exercise10 --submission $D/$v --no-perf | grep -E "Total|✗ test" -A1); done
