#!/bin/bash
# a6: the probe replaced by a forger found through the import's frames (exercises 1 and 10). Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for e in 1 10; do for v in ex$e ex${e}_control; do echo "== root: exercise$e $v"; $ROOT_GRADE exercise$e --submission "$HERE/$v" --no-perf | grep -E "Total|✗" -A2; done; done
setup_user_python
D=/tmp/u65534/a6; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for e in 1 10; do for v in ex$e ex${e}_control; do echo "== uid 65534: exercise$e $v"; (cd /tmp/u65534 && as_user lumen-grade exercise$e --submission $D/$v --no-perf | grep -E "Total|✗" -A2); done; done
echo "== root: exercise10 attack with the performance phase"; $ROOT_GRADE exercise10 --submission "$HERE/ex10" | tail -6
