#!/bin/bash
# a13: forged clock readings (through the frames) to win --perf-points (exercise 3). Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for v in . control; do echo "== root: $v"; $ROOT_GRADE exercise3 --submission "$HERE/$v" --perf-points 4 | grep -E "Total|tier" -A1; done
setup_user_python
D=/tmp/u65534/a13; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for v in . control; do echo "== uid 65534: $v"; (cd /tmp/u65534 && as_user lumen-grade exercise3 --submission $D/$v --perf-points 4 | grep -E "Total|tier" -A1); done
