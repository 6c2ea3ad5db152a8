#!/bin/bash
# a5: batch with a student folder holding links (to a classmate, the answer key, /dev/zero), a fifo, a socket
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
C=/tmp/a5-class; "$HERE/make_class.sh" $C; ls -l $C/bob $C/bob/sub
echo "===== ROOT batch"
(cd /tmp && TMPDIR=$RT_TMP timeout 600 /opt/venv20/bin/lumen-grade batch $C --out /tmp/a5-root/grades.csv --no-perf -j 2 --force; echo "[exit $?]") 2>&1 | tail -4
cut -d, -f1-13,18- /tmp/a5-root/grades.csv
python3 -c "import json; d=json.load(open('/tmp/a5-root/grades/bob.json')); print('bob files notes:', *d['files'], sep='\n  '); [print(' ', e['id'], e['score'], (e.get('error') or {}).get('message','')[:160] if isinstance(e.get('error'),dict) else str(e.get('error'))[:160]) for e in d['report']['exercises'] if e['score']==0][:3]"
UC=/tmp/u65534/a5-class; "$HERE/make_class.sh" $UC; chown -hR 65534:65534 $UC; mkdir -p /tmp/u65534/a5-out; chown 65534 /tmp/u65534/a5-out
echo "===== USER batch"
(cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 600 lumen-grade batch $UC --out /tmp/u65534/a5-out/grades.csv --no-perf -j 2 --force; echo "[exit $?]") 2>&1 | tail -4
cut -d, -f1-13,18- /tmp/u65534/a5-out/grades.csv
python3 -c "import json; d=json.load(open('/tmp/u65534/a5-out/grades/bob.json')); print('bob files notes:', *d['files'], sep='\n  ')"
echo "alice's folder after: $(ls $C/alice | wc -l) files, unchanged: $(cd $C/alice && sha256sum *.py | sha256sum | cut -c1-16) vs $(cd /work/scratch20/solutions && sha256sum *.py | sha256sum | cut -c1-16)"
rm -rf $C $UC /tmp/a5-root /tmp/u65534/a5-out; leftovers
