#!/bin/bash
# grade every NAME folder given (or all h*/m* folders) with mk68.sh-generated run.sh
cd /work/round68
for d in "${@:-$(ls -d h[0-9]* m[0-9]*)}"; do
  ex=$(cat $d/exercise.txt)
  bash mk68.sh $PWD/$d $ex
  bash $d/run.sh > $d/result.txt 2>&1
  echo "== $d: $(grep -E '^(✓|✗|!|\?)|Total' $d/result.txt | tr '\n' ' ' | cut -c1-200)"
done
