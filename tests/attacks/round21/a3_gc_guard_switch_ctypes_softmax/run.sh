#!/bin/bash
# a3: Guard.ctypes flipped through gc -> ctypes allowed -> torch's forbidden softmax kernel called by address.
D=$(cd "$(dirname "$0")" && pwd); . "$D/../common.sh"; setup_user_python
cd /tmp
for who in root user; do
  G() { if [ $who = root ]; then $ROOT_GRADE "$@"; else as_user lumen-grade "$@"; fi; }
  echo "=== $who: lumen-grade exercise5 --submission $D/sub"
  G exercise5 --submission "$D/sub"; echo "exit code: $?"
  echo "=== $who: control (the same file, switch left alone): the ctypes rule catches it"
  G exercise5 --submission "$D/control" | head -8; echo "exit code: ${PIPESTATUS[0]}"
done
