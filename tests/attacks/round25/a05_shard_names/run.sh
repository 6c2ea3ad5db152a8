#!/bin/bash
# batch --shard 0/2 and 1/2, then merge, on a class whose students are named after the shard's own
# files (_shard, _shard.manifest) and after the reports folder (grades): merge must be exact.
cd "$(dirname "$0")"; source /work/round25/lib.sh
./make_class.sh /tmp/r25-a05-class
run() { # $1 prefix-command, $2 class, $3 out base
  for k in 0 1; do $1 lumen-grade batch $2 --shard $k/2 --out $3/sh$k/grades.csv --no-perf --jobs 2 2>&1 | tail -1; done
  ls -a $3/sh0/grades $3/sh1/grades | tr '\n' ' '; echo
  $1 lumen-grade merge $3/sh0 $3/sh1 --out $3/merged/grades.csv; echo "merge exit $?"; cut -d, -f1,2,5,13,14 $3/merged/grades.csv
}
rm -rf /tmp/r25-a05-out; echo "=== root"; (cd /tmp && run "env TMPDIR=$RT_TMP PATH=/opt/venv20/bin:$PATH" /tmp/r25-a05-class /tmp/r25-a05-out)
d=$(user_copy /tmp/r25-a05-class a05-class); rm -rf /tmp/u65534/a05-out
echo "=== user"; (cd /tmp/u65534 && run "as_user env TMPDIR=$UT_TMP" $d /tmp/u65534/a05-out)
leftovers
