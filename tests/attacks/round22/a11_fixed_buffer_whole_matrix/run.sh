#!/bin/bash
# a11: a 2 MiB ballast touched in place at the start of every call flattens the probe's growth measure (exercise 10).
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for v in . control; do echo "== root: $v"; $ROOT_GRADE exercise10 --submission "$HERE/$v" --no-perf | grep -E "Total|✗ test" -A3; done
echo "== root: what the probe saw (in-process demo)"; for v in . control; do echo "-- $v"; /opt/venv20/bin/python "$HERE/demo_probe.py" "$HERE/$v/exercise10_tiled_attention.py"; done
setup_user_python
D=/tmp/u65534/a11; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for v in . control; do echo "== uid 65534: $v"; (cd /tmp/u65534 && as_user lumen-grade exercise10 --submission $D/$v --no-perf | grep -E "Total|✗ test" -A3); done
