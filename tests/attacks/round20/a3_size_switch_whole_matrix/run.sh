#!/bin/bash
# a3: exercise 10 graded 50/50 by a file that builds the whole (..., L_q, L_k) score matrix for every input of
# up to 64 keys (every value test) and whose online_softmax never reads in blocks: pure torch, no tricks.
cd "$(dirname "$0")"; . ../common.sh; setup_user_python; chmod -R a+rX .
D=$PWD
{
echo "== root"; (cd /tmp && $ROOT_GRADE exercise10 --submission "$D/submission" -v); echo "exit=$?"
echo "== uid 65534"; (cd /tmp && as_user lumen-grade exercise10 --submission "$D/submission"); echo "exit=$?"
echo "== proof that the matrix is built in the graded calls: the sizes the value tests use"
grep -n '"attention\[\|"lengths\[\|"attention_\|"gradients"\|"memory"\|"blocks"\|"measured"' /work/scratch20/grader/catalog/exercise10_tiled_attention/test_exercise10.py
} 2>&1 | tee result.txt
