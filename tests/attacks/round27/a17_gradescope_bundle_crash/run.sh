#!/bin/bash
# reproduce: a15's file through a real Gradescope bundle (run_autograder), laid out as /autograder is:
# the student's upload passes every test, and the results say the autograder failed ("not your fault"), score 0
cd "$(dirname "$0")"; source /work/round27/lib.sh
rm -rf /tmp/a17 && mkdir -p /tmp/a17 && cd /tmp/a17
(cd /work/scratch20 && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade gradescope-bundle --out /tmp/a17/autograder.zip --exercise 3) 2>&1 | tail -1
for level in root user; do
  R=/tmp/a17/ag-$level; [ $level = user ] && R=/tmp/u65534/a17-ag
  rm -rf $R; mkdir -p $R/source $R/submission $R/results; unzip -q /tmp/a17/autograder.zip -d $R/source
  cp /work/round27/a17_gradescope_bundle_crash/sub/exercise3_scaling.py $R/submission/
  echo "=== $level"
  if [ $level = root ]; then (cd /tmp && TMPDIR=$RT_TMP LUMEN_AUTOGRADER_ROOT=$R LUMEN_PYTHON=/opt/venv20/bin/python bash $R/source/run_autograder 2>&1 | tail -2)
  else chown -R 65534:65534 $R; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP LD_LIBRARY_PATH=/tmp/py3117/lib LUMEN_AUTOGRADER_ROOT=$R LUMEN_PYTHON=/tmp/uvenv/bin/python bash $R/source/run_autograder 2>&1 | tail -2); fi
  cat $R/results/results.json
done
rm -rf /tmp/u65534/a17-ag; leftovers
