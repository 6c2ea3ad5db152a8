#!/bin/bash
# a1: exercise9's scores returned as a huge Python int -> the grader blames itself ("grader error (please report it)")
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
echo "### root"; root_grade exercise9 --submission "$HERE" --no-perf 2>&1 | grep -v '^$'
P=$(user_copy "$HERE" a1); echo "### uid 65534"; user_grade exercise9 --submission "$P" --no-perf 2>&1 | grep -v '^$'
leftovers
