#!/bin/bash
# a4: the child writes its own (forged) wire messages on the judge's socket, found with gc, during import.
D=$(cd "$(dirname "$0")" && pwd); . "$D/../common.sh"; setup_user_python
W=$(mktemp -d /tmp/a4.XXXX); chmod 755 $W
cd /tmp; i=0
for p in '{"value": 5}' '{"error": 5}' '{}' '[1,2]' '{"value": {"list": [5]}}' '{"error": {"type": "ForbiddenCall", "rule": {"dict": []}}}'; do
  i=$((i+1)); python3 "$D/mk.py" "$p" $W/s$i; chmod -R a+rX $W
  for who in root user; do
    echo "=== $who: payload $p"
    if [ $who = root ]; then $ROOT_GRADE exercise3 --submission $W/s$i; else as_user lumen-grade exercise3 --submission $W/s$i; fi
    echo "exit code: $?"
  done
done
rm -rf $W
