#!/bin/bash
# the notebook's cells run in an IPython shell as a kernel runs them (solution, a cell of 200000 unary minuses, the
# check cell %run -m grader.course.notebooks exercise3), as root and as uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
echo "=== root"; (cd /tmp && TMPDIR=$RT_TMP timeout 300 /opt/venv20/bin/python /work/round62/tools/run_in_ipython.py /work/round62/a07_check_cell_deep/sub/exercise3_scaling.ipynb 2>&1 | sed "s/\x1b\[[0-9;]*m//g" | grep -vE "^ +[0-9]+ |^ *\^" | tail -14)
U=$(user_copy "$PWD/sub" r62-a07); cp /work/round62/tools/run_in_ipython.py $U/; chown 65534 $U/run_in_ipython.py
echo "=== uid 65534"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP LD_LIBRARY_PATH=/tmp/py3117/lib timeout 300 /tmp/uvenv/bin/python $U/run_in_ipython.py $U/exercise3_scaling.ipynb 2>&1 | sed "s/\x1b\[[0-9;]*m//g" | tail -14)
rm -rf $U
leftovers
