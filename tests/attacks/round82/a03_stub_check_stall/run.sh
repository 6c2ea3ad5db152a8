#!/bin/bash
# a03: student "a-hostile" hands in a notebook exercise3_scaling.ipynb plus 4 old copies old/vK/exercise3_scaling.py
# of 2 MiB each (16 KB zipped). The batch's own process (main thread) parses every copy to ask "still the stub?"
# before it starts anyone else: the whole class waits. Lines are prefixed with seconds since the start.
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD; bash ../make_copies.sh "$H/class/a-hostile"
stamp() { S=$(date +%s); while IFS= read -r l; do echo "[+$(( $(date +%s) - S ))s] $l"; done; }
echo "=== root (class: a-hostile, s001, s002; --jobs 2)"; rm -rf /tmp/r82-a03-root; mkdir -p /tmp/r82-a03-root
root_grade batch "$H/class" --out /tmp/r82-a03-root/grades.csv --no-perf --jobs 2 2>&1 | stamp
cut -d, -f1-2,5,13-15 /tmp/r82-a03-root/grades.csv
echo "=== root control (a-hostile without old/)"; rm -rf /tmp/r82-a03-ctl; cp -a "$H/class" /tmp/r82-a03-ctl; rm -rf /tmp/r82-a03-ctl/a-hostile/old
rm -rf /tmp/r82-a03-ctlout; mkdir -p /tmp/r82-a03-ctlout
root_grade batch /tmp/r82-a03-ctl --out /tmp/r82-a03-ctlout/grades.csv --no-perf --jobs 2 2>&1 | stamp
echo "=== uid 65534"; C=$(user_copy "$H/class" r82-a03-class)
rm -rf /tmp/u65534/r82-a03-out; mkdir -p /tmp/u65534/r82-a03-out; chown 65534 /tmp/u65534/r82-a03-out
user_grade batch "$C" --out /tmp/u65534/r82-a03-out/grades.csv --no-perf --jobs 2 2>&1 | stamp
cut -d, -f1-2,5,13-15 /tmp/u65534/r82-a03-out/grades.csv
echo "=== one copy's stub check alone (grader.grading.submission._still_the_stub), with peak memory"
/usr/bin/time -f "%e s, %M KB max RSS" /opt/venv22/bin/python -c "
from pathlib import Path; from grader import catalog; from grader.grading import submission
print(submission._still_the_stub(catalog.find('exercise3'), Path('$H/class/a-hostile/old/v0/exercise3_scaling.py')))"
leftovers
