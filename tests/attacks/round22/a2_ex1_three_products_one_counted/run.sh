#!/bin/bash
# a2: exercise 1's "ONE matrix product" rule: three 1x1 convolutions + one dummy 1x1 mm. Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for v in . control control_nodummy; do echo "== root: $v"; $ROOT_GRADE exercise1 --submission "$HERE/$v" --no-perf | tail -4; done
setup_user_python
D=/tmp/u65534/a2; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for v in . control control_nodummy; do echo "== uid 65534: $v"; (cd /tmp/u65534 && as_user lumen-grade exercise1 --submission $D/$v --no-perf | tail -4); done
