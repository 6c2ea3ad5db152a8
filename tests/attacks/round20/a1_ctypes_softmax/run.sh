#!/bin/bash
# a1: exercise 5 graded 41/41 while every softmax it returns is torch's forbidden softmax kernel (via ctypes)
cd "$(dirname "$0")"; . ../common.sh; setup_user_python; chmod -R a+rX .
{
echo "== root: the attack"; (D=$PWD; cd /tmp && $ROOT_GRADE exercise5 --submission "$D/submission"); echo "exit=$?"
echo "== root: control (the same kernel called as torch.softmax)"; (D=$PWD; cd /tmp && $ROOT_GRADE exercise5 --submission "$D/control"); echo "exit=$?"
echo "== uid 65534: the attack"; (D=$PWD; cd /tmp && as_user lumen-grade exercise5 --submission "$D/submission"); echo "exit=$?"
echo "== uid 65534: control"; (D=$PWD; cd /tmp && as_user lumen-grade exercise5 --submission "$D/control"); echo "exit=$?"
} 2>&1 | tee result.txt
