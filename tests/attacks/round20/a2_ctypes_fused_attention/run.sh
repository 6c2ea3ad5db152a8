#!/bin/bash
# a2: exercise 10 graded 50/50 ("on par", "memory: tiled") while tiled_attention is torch's forbidden fused
# flash-attention CPU kernel and online_softmax torch's forbidden softmax kernel, both via ctypes; and the
# same file graded in a class (`batch`) beside an honest classmate: identical rows.
cd "$(dirname "$0")"; . ../common.sh; setup_user_python; chmod -R a+rX .
D=$PWD
{
echo "== root: the attack"; (cd /tmp && $ROOT_GRADE exercise10 --submission "$D/submission" -v | tail -12); echo "exit=${PIPESTATUS[0]}"
echo "== root: control (the same kernel called as F.scaled_dot_product_attention)"; (cd /tmp && $ROOT_GRADE exercise10 --submission "$D/control"); echo "exit=$?"
echo "== root: batch (mallory = a1 + a2 files, alice = the instructor's solutions)"
rm -rf /tmp/a2_root && mkdir /tmp/a2_root && (cd /tmp/a2_root && $ROOT_GRADE batch "$D/class" --out /tmp/a2_root/grades.csv -j 2; echo "exit=$?"; cat grades.csv)
echo "== uid 65534: the attack"; (cd /tmp && as_user lumen-grade exercise10 --submission "$D/submission"); echo "exit=$?"
echo "== uid 65534: control"; (cd /tmp && as_user lumen-grade exercise10 --submission "$D/control"); echo "exit=$?"
echo "== uid 65534: batch"
rm -rf /tmp/a2_user && mkdir /tmp/a2_user && chown 65534:65534 /tmp/a2_user
(cd /tmp/a2_user && as_user lumen-grade batch "$D/class" --out /tmp/a2_user/grades.csv -j 2; echo "exit=$?"; cat grades.csv)
} 2>&1 | tee result.txt
