#!/bin/bash
# a8: every function of every exercise returns one odd value (23 kinds): any grader fault is a finding
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
python3 "$HERE/gen.py"
echo "### root: lumen-grade all on each (suspicious = lines naming the grader's own failure)"
for d in "$HERE"/sub_*; do n=$(basename $d)
  out=$(root_grade all --submission "$d" --no-perf --format json 2>&1)
  echo "$n: $(echo "$out" | grep -c -i -e traceback -e 'please report' -e 'GraderFault' -e 'grader failed') suspicious; $(echo "$out" | grep -i -m1 'please report' | sed 's/^ *//')"
done
echo "### uid 65534 (a subset)"
for n in bigint obj zerohuge nan; do P=$(user_copy "$HERE/sub_$n" a8_$n)
  out=$(user_grade all --submission "$P" --no-perf --format json 2>&1)
  echo "sub_$n: $(echo "$out" | grep -c -i -e traceback -e 'please report' -e 'GraderFault' -e 'grader failed') suspicious"
done
leftovers
