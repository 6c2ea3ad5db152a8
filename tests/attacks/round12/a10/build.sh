#!/bin/bash
# builds the hostile class folder CLASS in $1
set -e
C=$1; rm -rf $C; mkdir -p $C
S=/work/scratch-sec12/solutions/exercise3_scaling.py
mkdir $C/alice; cp $S $C/alice/
LONG=$(printf 'v%.0s' $(seq 240))
mkdir $C/$LONG; cp $S $C/$LONG/                        # the victim: an honest student with a long folder name
COL=$(/work/scratch-sec12/.venv-n/bin/python -c "from grader.course import classbook as c; print(c.student_name('$LONG'))")
mkdir $C/$COL; cat > $C/$COL/exercise3_scaling.py <<'PY'
def scale_scores(scores, d_k):
    return scores * 0
def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) * 0
PY
mkdir "$C/nl
name"; cp $S "$C/nl
name/"
mkdir $C/_shard.manifest; cp $S $C/_shard.manifest/
mkdir $C/linker; ln -s ../alice/exercise3_scaling.py $C/linker/exercise3_scaling.py
mkdir $C/hardlinker; ln $C/alice/exercise3_scaling.py $C/hardlinker/exercise3_scaling.py
mkdir $C/fifo; mkfifo $C/fifo/exercise3_scaling.py
mkdir $C/deep; d=$C/deep; python3 -c "
import os; os.chdir('$C/deep'); src=open('$S').read()
for i in range(1200): os.mkdir('d'); os.chdir('d')
open('exercise3_scaling.py','w').write(src)"
mkdir $C/huge; truncate -s 3G $C/huge/exercise3_scaling.py
chmod -R a+rX $C
