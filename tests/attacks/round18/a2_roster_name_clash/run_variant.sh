#!/bin/bash
# a2 variant: Bob has not handed in yet; Mallory's folder, named after Bob's email, becomes Bob's row
HERE=$(cd "$(dirname "$0")" && pwd)
for who in root user; do
  rm -rf $HERE/class2; mkdir -p $HERE/class2/1001 "$HERE/class2/BOB@X.EDU"
  cp /work/scratch18/solutions/exercise3_scaling.py $HERE/class2/1001/
  cp $HERE/class/BOB@X.EDU/exercise3_scaling.py "$HERE/class2/BOB@X.EDU/" 2>/dev/null || printf 'def scale_scores(s, d):\n    return s\ndef scaled_scores(q, k):\n    return q\n' > "$HERE/class2/BOB@X.EDU/exercise3_scaling.py"
  chmod -R a+rwX $HERE/class2; rm -rf $HERE/out2-$who; mkdir -p $HERE/out2-$who; chmod a+rwx $HERE/out2-$who
  cmd="cd /work/scratch18; lumen-grade batch $HERE/class2 --no-perf --timeout 20 --roster $HERE/roster.csv --out $HERE/out2-$who/grades.csv 2>&1 | tail -3; echo exit=\${PIPESTATUS[0]}; cut -d, -f1-5,15-18 $HERE/out2-$who/grades.csv"
  echo "=== $who"
  if [ $who = root ]; then PATH=/opt/venv18/bin:$PATH bash -c "$cmd"
  else setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "$cmd"; fi
done
