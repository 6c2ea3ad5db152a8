#!/bin/bash
# a6: fill the scratch folder (inodes, bytes, depth); the grader must bound it and leave nothing behind
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
echo "### root"; root_grade exercise3 --submission "$HERE" --no-perf 2>&1 | grep -v '^$'
P=$(user_copy "$HERE" a6); echo "### uid 65534"; user_grade exercise3 --submission "$P" --no-perf 2>&1 | grep -v '^$'
echo "### disk: /tmp use after both runs"; df -h /tmp | tail -1
leftovers
