#!/bin/bash
# a02: one student's exercise3 (the class's common mistake, scale-by-dk) carries a 100 000-letter string literal;
# the class report's anonymiser (_EMAIL regex, quadratic on a long run of word characters) stalls on it.
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
echo "=== root"; rm -rf /tmp/r82-a02-root; mkdir -p /tmp/r82-a02-root
S=$(date +%s); root_grade batch "$H/class" --out /tmp/r82-a02-root/grades.csv --no-perf --jobs 2 --class-report --stubs /work/scratch22/exercises 2>&1 | tail -5
echo "root batch+class report took $(( $(date +%s) - S )) s"
S=$(date +%s); root_grade class-report /tmp/r82-a02-root/grades.csv --submissions "$H/class" --stubs /work/scratch22/exercises 2>&1 | tail -2
echo "root class-report alone took $(( $(date +%s) - S )) s"
echo "=== uid 65534"; C=$(user_copy "$H/class" r82-a02-class)
rm -rf /tmp/u65534/r82-a02-out; mkdir -p /tmp/u65534/r82-a02-out; chown 65534 /tmp/u65534/r82-a02-out
S=$(date +%s); user_grade batch "$C" --out /tmp/u65534/r82-a02-out/grades.csv --no-perf --jobs 2 --class-report --stubs /work/scratch22/exercises 2>&1 | tail -5
echo "uid 65534 batch+class report took $(( $(date +%s) - S )) s"
echo "=== control: the same class without the long line (class-report alone, root)"
rm -rf /tmp/r82-a02-ctl; cp -a "$H/class" /tmp/r82-a02-ctl; cp /tmp/r82-a02-ctl/s001/exercise3_scaling.py /tmp/r82-a02-ctl/s003/
S=$(date +%s); root_grade class-report /tmp/r82-a02-root/grades.csv --submissions /tmp/r82-a02-ctl --stubs /work/scratch22/exercises --out /tmp/r82-a02-ctl-out 2>&1 | tail -2
echo "control class-report took $(( $(date +%s) - S )) s"
echo "=== the regex alone (grader.course.class_report._EMAIL) on runs of n letters"
/opt/venv22/bin/python -c "
import time; from grader.course.class_report import _EMAIL
for n in (10000, 20000, 40000):
    t=time.time(); _EMAIL.sub('[name]', 'a'*n); print(n, 'letters:', round(time.time()-t, 2), 's')"
leftovers
