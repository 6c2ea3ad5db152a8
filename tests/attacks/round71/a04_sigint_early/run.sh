#!/bin/bash
# SIGINT (Ctrl-C) to lumen-grade at several moments from its start: the exit code and the last stderr lines
cd "$(dirname "$0")"; source /work/round71/lib.sh; H=$PWD
U=$(user_copy "$PWD/sub" r71-a04-sub)
for who in root user; do
  for t in 0.05 0.2 0.4 0.7 1.0 1.5 2.5 4; do
    if [ $who = root ]; then
      (cd /tmp && exec env TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade exercise3 --submission "$H/sub" --no-perf) >out.$$ 2>err.$$ &
    else
      (cd /tmp/u65534 && exec setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/u65534 PATH=/tmp/uvenv/bin:/usr/bin:/bin TMPDIR=$UT_TMP /tmp/uvenv/bin/lumen-grade exercise3 --submission "$U" --no-perf) >out.$$ 2>err.$$ &
    fi
    pid=$!; sleep $t
    # the whole foreground process group gets Ctrl-C in a terminal; here: the process and its children
    pkill -INT -P $pid 2>/dev/null; kill -INT $pid 2>/dev/null
    wait $pid; rc=$?
    echo "$who t=$t exit=$rc stderr: $(tail -c 300 err.$$ | tr '\n' '|')  stdout: $(head -c 80 out.$$ | tr '\n' '|')"
  done
done
rm -f out.$$ err.$$; rm -rf "$U"
sleep 1; leftovers
