#!/bin/bash
# reproduce: grade exercise3 from ./sub (and ./control) as root and as uid 65534
cd "$(dirname "$0")"; source /work/round55/lib.sh
for s in sub control; do
  [ -d "$s" ] || continue
  echo "########## $s"
  echo "=== root"; root_grade exercise3 --submission "$PWD/$s" --no-perf 
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r55-$(basename "$PWD")-$s); user_grade exercise3 --submission "$U" --no-perf 
  rm -rf "$U"
done
leftovers
echo "########## the notebook's check cell, in a kernel that ran the same cells (IPython InteractiveShell)"
echo "=== root"; (cd /tmp && /opt/venv20/bin/python "$OLDPWD/simulate.py")
echo "=== uid 65534"; cp simulate.py /tmp/u65534/r55-h02-simulate.py; chown 65534 /tmp/u65534/r55-h02-simulate.py
(cd /tmp/u65534 && as_user env TMPDIR=/tmp/u65534 LD_LIBRARY_PATH=/tmp/py3117/lib /tmp/uvenv/bin/python /tmp/u65534/r55-h02-simulate.py); rm -f /tmp/u65534/r55-h02-simulate.py
