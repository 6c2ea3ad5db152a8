#!/bin/bash
# a1: whole (L_q, L_k) matrix in an mmap-backed NumPy array: invisible to the probe. Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
echo "== root: attack"; $ROOT_GRADE exercise10 --submission "$HERE" --no-perf | tail -3
echo "== root: control (same file, np.empty instead of the mmap)"; $ROOT_GRADE exercise10 --submission "$HERE/control_malloc" --no-perf | tail -3
echo "== root: what the probe saw vs what was built (in-process demo)"; /opt/venv20/bin/python "$HERE/demo_probe.py" "$HERE/exercise10_tiled_attention.py"
setup_user_python
D=/tmp/u65534/a1; rm -rf $D; mkdir -p $D/ctl; cp "$HERE/exercise10_tiled_attention.py" $D/; cp "$HERE/control_malloc/exercise10_tiled_attention.py" $D/ctl/
chown -R 65534:65534 /tmp/u65534
echo "== uid 65534: attack"; (cd /tmp/u65534 && as_user lumen-grade exercise10 --submission $D --no-perf | tail -3)
echo "== uid 65534: control"; (cd /tmp/u65534 && as_user lumen-grade exercise10 --submission $D/ctl --no-perf | tail -3)
