#!/bin/bash
# a8: torch's softmax reached by other routes (exercise 5). Root, then uid 65534.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
for r in r1_categorical r2_softmin r3_jit_script r5_quantized_op; do echo "== root: $r"; $ROOT_GRADE exercise5 --submission "$HERE/$r" --no-perf | grep -E "Total|forbidden"; done
setup_user_python
D=/tmp/u65534/a8; rm -rf $D; mkdir -p $D; cp -r "$HERE"/. $D/; chown -R 65534:65534 /tmp/u65534
for r in r1_categorical r2_softmin r3_jit_script r5_quantized_op; do echo "== uid 65534: $r"; (cd /tmp/u65534 && as_user lumen-grade exercise5 --submission $D/$r --no-perf | grep -E "Total|forbidden"); done
