#!/bin/bash
# a4: exercise 8's "storage allocated once, no torch.cat per update": cat every update, reserve at 3/4 full.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
echo "== root: attack (with the performance phase)"; $ROOT_GRADE exercise8 --submission "$HERE" | tail -4
echo "== root: control (no reserve: cat every update)"; $ROOT_GRADE exercise8 --submission "$HERE/control" --no-perf | tail -12
setup_user_python
D=/tmp/u65534/a4; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
echo "== uid 65534: attack"; (cd /tmp/u65534 && as_user lumen-grade exercise8 --submission $D --no-perf | tail -3)
echo "== uid 65534: control"; (cd /tmp/u65534 && as_user lumen-grade exercise8 --submission $D/control --no-perf | tail -3)
