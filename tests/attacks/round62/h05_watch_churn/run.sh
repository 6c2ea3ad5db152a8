#!/bin/bash
# lumen-grade watch exercise3 on a folder that churns: honest notebook, broken JSON, a directory in the
# .py's name, a FIFO, a symlink, deletion, a notebook of 1001 cells, back to honest; root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
S=/work/scratch20/solutions; T=/work/round62/tools
churn() {  # $1: folder
  local D=$1; sleep 6
  echo "@@ broken JSON" >&2; echo '{"cells": [' > $D/exercise3_scaling.ipynb; sleep 3
  echo "@@ dir named like the .py" >&2; mkdir $D/exercise3_scaling.py; sleep 3
  echo "@@ notebook removed" >&2; rm -f $D/exercise3_scaling.ipynb; sleep 3
  echo "@@ fifo named like the notebook" >&2; mkfifo $D/exercise3_scaling.ipynb; sleep 3
  echo "@@ symlink" >&2; rm -f $D/exercise3_scaling.ipynb; ln -s /dev/zero $D/exercise3_scaling.ipynb; sleep 3
  echo "@@ 1001 cells" >&2; rm -f $D/exercise3_scaling.ipynb; python3 -c "
import json; print(json.dumps({'cells':[{'cell_type':'code','source':'x=1','metadata':{},'outputs':[],'execution_count':None}]*1001,'metadata':{},'nbformat':4,'nbformat_minor':4}))" > $D/exercise3_scaling.ipynb; sleep 3
  echo "@@ folder removed" >&2; mv $D $D.gone; sleep 3
  echo "@@ folder back, honest" >&2; mv $D.gone $D; rm -f $D/exercise3_scaling.ipynb; rmdir $D/exercise3_scaling.py; cp /work/round62/h01_nb_honest/sub/exercise3_scaling.ipynb $D/; sleep 6
}
echo "=== root"
R=/tmp/r62-h05-root; rm -rf $R $R.gone; mkdir -p $R; cp h01_src.ipynb $R/exercise3_scaling.ipynb
(cd /tmp && TMPDIR=$RT_TMP timeout -s INT 45 /opt/venv20/bin/lumen-grade watch exercise3 --submission $R --no-perf --no-color) > root_watch.log 2>&1 &
W=$!; churn $R 2>&1; wait $W; echo "[watch exit $?]"
grep -E "exercise3 |✗ |Traceback|Error|stopped|watching" root_watch.log | cut -c1-160
rm -rf $R $R.gone
echo "=== uid 65534"
U=/tmp/u65534/r62-h05; rm -rf $U $U.gone; mkdir -p $U; cp h01_src.ipynb $U/exercise3_scaling.ipynb; chown -R 65534:65534 $U
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout -s INT 45 lumen-grade watch exercise3 --submission $U --no-perf --no-color) > user_watch.log 2>&1 &
W=$!; churn $U 2>&1; wait $W; echo "[watch exit $?]"
grep -E "exercise3 |✗ |Traceback|Error|stopped|watching" user_watch.log | cut -c1-160
rm -rf $U $U.gone
leftovers
