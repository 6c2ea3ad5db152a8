#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534 (text report; lines that carry "kept")
cd "$(dirname "$0")"; source /work/round30/lib.sh
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf -v --hints all | grep -n -i "kept\|d_k=\|Total\|exit"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-a10); user_grade exercise3 --submission "$U" --no-perf -v --hints all | grep -n -i "kept\|d_k=\|Total\|exit"
leftovers
