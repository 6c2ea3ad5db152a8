#!/bin/bash
# reproduce: `lumen-grade all` on a folder of odd files (a folder, a FIFO, a link to the solutions, a link loop,
# a 3 GB sparse file, a non-UTF-8 name, an unreadable file, a notebook for another exercise, 200000 '[',
# a BOM with a latin-1 cookie), as root and as uid 65534
cd "$(dirname "$0")"; bash setup.sh; source /work/round30/lib.sh
echo "=== root"; root_grade all --submission "$PWD/sub" --no-perf 2>&1 | head -60
echo "=== uid 65534"; rm -rf /tmp/u65534/sub-a15; cp -a sub /tmp/u65534/sub-a15; chown -R -h 65534:65534 /tmp/u65534/sub-a15; user_grade all --submission /tmp/u65534/sub-a15 --no-perf 2>&1 | head -60
leftovers
