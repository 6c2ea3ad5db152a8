#!/bin/bash
# a7: the student's code writes its own reply frame (error type GraderFault) on the judge's socket, then exits
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
echo "### root"; root_grade exercise3 --submission "$HERE" --no-perf 2>&1 | grep -v '^$'
P=$(user_copy "$HERE" a7); echo "### uid 65534"; user_grade exercise3 --submission "$P" --no-perf 2>&1 | grep -v '^$'
echo "### root, JSON: the tests' status"
root_grade exercise3 --submission "$HERE" --no-perf --format json 2>/dev/null | grep -o '"status": "error"' | sort | uniq -c
leftovers
