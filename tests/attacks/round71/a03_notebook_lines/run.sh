#!/bin/bash
# the notebook check cell (check_in_kernel) in a simulated IPython kernel, as root and as uid 65534
# (LUMEN_COURSE: a course whose hints start at level 3, the cause, where the located line is)
cd "$(dirname "$0")"; source /work/round71/lib.sh; H=$PWD
echo "=== root"; (cd /tmp && LUMEN_COURSE=$H/course.toml TMPDIR=$RT_TMP IPYTHONDIR=/tmp/r71-ipy-root /opt/venv20/bin/python $H/nbcheck.py exercise3 2>&1 | grep -v "^\s*$")
cp nbcheck.py course.toml /tmp/u65534/; chmod a+r /tmp/u65534/nbcheck.py /tmp/u65534/course.toml
echo "=== uid 65534"; (cd /tmp/u65534 && as_user env LUMEN_COURSE=/tmp/u65534/course.toml TMPDIR=$UT_TMP IPYTHONDIR=/tmp/u65534/r71-ipy LD_LIBRARY_PATH=/tmp/py3117/lib /tmp/uvenv/bin/python /tmp/u65534/nbcheck.py exercise3 2>&1 | grep -v "^\s*$")
rm -rf /tmp/u65534/nbcheck.py /tmp/u65534/course.toml /tmp/u65534/r71-ipy /tmp/r71-ipy-root
echo "########## the same two cells as a notebook file: lumen-grade exercise3 --notebook FILE (course: hints from level 3)"
echo "=== root"; root_grade exercise3 --notebook "$H/exercise3_scaling.ipynb" --no-perf --course "$H/course.toml" 2>&1 | grep -A3 "➜"
U=$(user_copy "$H" r71-a03); echo "=== uid 65534"; user_grade exercise3 --notebook "$U/exercise3_scaling.ipynb" --no-perf --course "$U/course.toml" 2>&1 | grep -A3 "➜"; rm -rf "$U"
leftovers
