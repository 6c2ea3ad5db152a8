#!/bin/bash
# a3: torch's softmax kernel reached through a non-aten operator (quantized::softmax), from a second thread
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
echo "### root"; root_grade exercise5 --submission "$HERE" --no-perf 2>&1 | grep -v '^$' | head -12
P=$(user_copy "$HERE" a3); echo "### uid 65534"; user_grade exercise5 --submission "$P" --no-perf 2>&1 | grep -v '^$' | head -12
leftovers
