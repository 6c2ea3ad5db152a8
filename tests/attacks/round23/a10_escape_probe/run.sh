#!/bin/bash
# a10: a probe run at import: signals to the grader, other processes' /proc, secrets, writes outside the
# scratch, fork/sockets/pipes/memfd/eventfd/pidfd, limits, scheduling, 100 threads. Control: the solution.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
echo "===== ROOT attack";  root_grade exercise3 --submission "$HERE/attack" --no-perf --format json | python3 "$HERE/show.py"
echo "===== ROOT control"; root_grade exercise3 --submission "$HERE/control" --no-perf | tail -2
U=$(user_copy "$HERE/attack" a10); UC=$(user_copy "$HERE/control" a10c)
echo "===== USER attack";  user_grade exercise3 --submission "$U" --no-perf --format json | python3 "$HERE/show.py"
echo "===== USER control"; user_grade exercise3 --submission "$UC" --no-perf | tail -2
ls -la /tmp/lumen_probe /etc/lumen_probe 2>&1 | sed 's/^/after: /'
rm -rf "$U" "$UC"; leftovers
