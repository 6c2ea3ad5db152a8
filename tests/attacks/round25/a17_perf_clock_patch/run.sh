#!/bin/bash
# Timed phase: deliberately slow exercise 3 (a 300-step Python loop per call), with every clock of the
# time module (perf_counter, monotonic, thread_time, process_time, time, clock_gettime and their _ns)
# patched at import to advance a nanosecond per reading. baseline/ is the same slow code unpatched.
# The patched file must not get a better tier than the baseline.
cd "$(dirname "$0")"; HERE=$PWD; source /work/round25/lib.sh
show() { python3 -c "
import json,sys; r=json.load(open(sys.argv[1])); t=r['exercises'][0]['tier']; print(sys.argv[2], t['id'], t['ratio'], 'rounds', t.get('rounds'), 'spread', t.get('spread'), '|', t.get('case'))" "$1" "$2"; }
for i in 1 2; do for v in baseline sub; do
  root_grade exercise3 --submission $HERE/$v --format json --output /tmp/r25-a17.json >/dev/null 2>&1; show /tmp/r25-a17.json "root $v"
  d=$(user_copy $HERE/$v a17-$v); user_grade exercise3 --submission $d --format json --output /tmp/u65534/a17.json >/dev/null 2>&1; show /tmp/u65534/a17.json "user $v"
done; done
leftovers
