#!/bin/bash
# Gradescope: the bundle carries the exercise-3 solution (source/selftest/). An upload whose exercise-3
# file is a symlink to it, or whose folder is a symlink to that folder, or a hard link to it
# (as a zip extracted into the same file system could not, a tar could): must not score 21/21.
cd "$(dirname "$0")"; source /work/round25/lib.sh; source ../a01_gradescope_ladder/gs.sh
ZIP=/tmp/r25gs-ag3.zip; gs_build $ZIP exercise3 >/dev/null
for level in root user; do
  if [ $level = root ]; then R=/tmp/r25gs-a16; else R=/tmp/u65534/r25gs-a16; fi
  for kind in file_link dir_link hard_link relative_link; do
    gs_root $R $ZIP $level; S=$R/submission
    case $kind in
      file_link) ln -s $R/source/selftest/exercise3_scaling.py $S/exercise3_scaling.py;;
      dir_link) ln -s $R/source/selftest $S/hw;;
      hard_link) ln $R/source/selftest/exercise3_scaling.py $S/exercise3_scaling.py;;
      relative_link) mkdir -p $S/a/b; ln -s ../../../source/selftest/exercise3_scaling.py $S/a/b/exercise3_scaling.py;;
    esac
    [ $level = user ] && chown -R -h 65534:65534 $R
    gs_run $R $level >$R.log 2>&1
    python3 -c "
import json; r=json.load(open('$R/results/results.json')); print('$level $kind: score', r['score'], '|', [l for l in r['output'].splitlines() if l.startswith('exercise3')][-1][:160])"
  done
done
leftovers
