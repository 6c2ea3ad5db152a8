#!/bin/bash
# a04: exercise 4's code writes hidden check A's first score into every file it may write; exercise 5's code (graded
# next, in `lumen-grade all`) reads them and prints what it finds during a visible test
cd "$(dirname "$0")"; source /work/round69/lib.sh
rm -f /tmp/r69_kept.txt /dev/shm/r69_kept.txt /var/tmp/r69_kept.txt /work/round69/r69_kept.txt
echo "=== root"; root_grade all --submission "$PWD/sub" --no-perf --format json | python3 -c "import json,sys; d=json.JSONDecoder().raw_decode(sys.stdin.read())[0]; [print(e.get(\"id\"), repr(e.get(\"output\"))[:1500]) for e in d[\"exercises\"] if e.get(\"output\")]"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r69-a04-sub); user_grade all --submission "$U" --no-perf --format json | python3 -c "import json,sys; d=json.JSONDecoder().raw_decode(sys.stdin.read())[0]; [print(e.get(\"id\"), repr(e.get(\"output\"))[:1500]) for e in d[\"exercises\"] if e.get(\"output\")]"; rm -rf "$U"
ls -la /tmp/r69_kept.txt /dev/shm/r69_kept.txt /var/tmp/r69_kept.txt /work/round69/r69_kept.txt 2>&1
leftovers
