#!/bin/bash
# builds class/ (3 students) and roster.csv; mallory names her upload folder after bob's email
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf $HERE/class; mkdir -p $HERE/class/1001 $HERE/class/1002 "$HERE/class/BOB@X.EDU"
cp /work/scratch18/solutions/exercise3_scaling.py $HERE/class/1001/
cp /work/scratch18/solutions/exercise3_scaling.py $HERE/class/1002/
printf 'import math\ndef scale_scores(s, d_k):\n    return s / d_k\ndef scaled_scores(q, k):\n    return q @ k.transpose(-2, -1)\n' > "$HERE/class/BOB@X.EDU/exercise3_scaling.py"
printf 'student_id,name,email\n1001,Alice Ng,alice@x.edu\n1002,Bob Smith,bob@x.edu\n1003,Mallory Q,mallory@x.edu\n' > $HERE/roster.csv
chmod -R a+rwX $HERE
