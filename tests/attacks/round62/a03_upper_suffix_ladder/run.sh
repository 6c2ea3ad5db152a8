#!/bin/bash
# grade --notebook three times, the notebook re-run (new outputs, same code) between gradings; the hint level
# shown each time. sub: exercise3_scaling.IPYNB; control: exercise3_scaling.ipynb. root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh; T=/work/round62/tools
for s in sub control; do
  F=$(ls $s); echo "########## $s ($F)"
  R=/tmp/r62-a03-$s; rm -rf $R; cp -a $s $R
  echo "=== root"; for i in 1 2 3; do /opt/venv20/bin/python $T/rerun_outputs.py $R/$F $i; root_grade exercise3 --notebook $R/$F --no-perf | grep -E "hint [0-9] of|exit"; done; rm -rf $R
  U=$(user_copy "$PWD/$s" r62-a03-$s)
  echo "=== uid 65534"; for i in 1 2 3; do /opt/venv20/bin/python $T/rerun_outputs.py $U/$F $i; chown 65534 $U/$F; user_grade exercise3 --notebook $U/$F --no-perf | grep -E "hint [0-9] of|exit"; done; rm -rf $U
done
leftovers
