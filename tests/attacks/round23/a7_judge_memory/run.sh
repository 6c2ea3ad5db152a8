#!/bin/bash
# a7: the judge's own (unlimited) memory, driven by what the child answers: every call answers a 120 MiB
# tensor (under the wire's 128 MiB message limit). The judge's peak RSS, control vs attack, both levels.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
cp "$HERE/judge_rss.py" /tmp/u65534/a7_judge_rss.py; chmod a+r /tmp/u65534/a7_judge_rss.py
for pair in "exercise3 control" "exercise3 attack" "exercise10 control10" "exercise10 attack10" "all attack_all"; do
  set -- $pair
  echo "== ROOT $1 $2"; (cd /tmp && TMPDIR=$RT_TMP /usr/bin/time -f "wall %e s" /opt/venv20/bin/python "$HERE/judge_rss.py" $1 --submission "$HERE/$2" --no-perf 2>&1 | tail -3)
  U=$(user_copy "$HERE/$2" a7-$2)
  echo "== USER $1 $2"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP LD_LIBRARY_PATH=/tmp/py3117/lib /usr/bin/time -f "wall %e s" /tmp/uvenv/bin/python /tmp/u65534/a7_judge_rss.py $1 --submission "$U" --no-perf 2>&1 | tail -3)
  rm -rf "$U"
done
rm -f /tmp/u65534/a7_judge_rss.py; leftovers
