#!/bin/bash
# two colluding students' exercise files (one shared 14-token line, then a line that differs in structure, repeated)
# make copydetect return one matched slice per shared line; similarity._lines is O(slices x lines) for the evidence.
# Reproduced on grader.course.similarity itself (what `class-report --similarity` calls per pair and exercise).
cd "$(dirname "$0")"; source /work/round72/lib.sh
echo "=== root"; /opt/venv20/bin/python sim.py 8000
cp sim.py /tmp/u65534/r72-a06-sim.py; chown 65534 /tmp/u65534/r72-a06-sim.py
echo "=== uid 65534"; as_user env LD_LIBRARY_PATH=/tmp/py3117/lib /tmp/uvenv/bin/python /tmp/u65534/r72-a06-sim.py 8000
rm -f /tmp/u65534/r72-a06-sim.py
leftovers
