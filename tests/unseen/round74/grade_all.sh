#!/bin/bash
cd /work/round74; source /work/round74/lib.sh
for d in m[0-9]*_*; do
  ex=$(cat $d/exercise)
  { echo "### $d ($ex) root, text"; root_grade $ex --submission $PWD/$d/sub --no-perf --hints all; } > $d/result.txt 2>&1
  { root_grade $ex --submission $PWD/$d/sub --no-perf --hints all --format json; } > $d/result.json 2>$d/result.json.err
done
leftovers
