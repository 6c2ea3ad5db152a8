#!/bin/bash
# a2: every exercise delegated to the answer key (lumen_ref), reached through gc.get_objects() in the child.
D=$(cd "$(dirname "$0")" && pwd); . "$D/../common.sh"; setup_user_python
W=$(mktemp -d /tmp/a2.XXXX); chmod 777 $W; mkdir -p $W/class/mallory; cp "$D"/sub/*.py $W/class/mallory/; chmod -R a+rwX $W
cd /tmp
for who in root user; do
  G() { if [ $who = root ]; then $ROOT_GRADE "$@"; else as_user lumen-grade "$@"; fi; }
  echo "=== $who: lumen-grade all --submission $D/sub"
  G all --submission "$D/sub"; echo "exit code: $?"
  echo "=== $who: lumen-grade batch (class of one: mallory = these files) --no-perf"
  G batch $W/class --out $W/grades-$who.csv --no-perf -j 1; echo "exit code: $?"
  cat $W/grades-$who.csv
done
rm -rf $W
