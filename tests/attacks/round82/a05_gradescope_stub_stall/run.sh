#!/bin/bash
# a05: Gradescope run_autograder (bundle of exercise 3, built from the scratch kit) on an upload with a notebook,
# 4 old 2 MiB copies old/vK/exercise3_scaling.py (16 KB zipped) and a folder named like a formula/markup;
# as root and as uid 65534, timed, results.json checked; a control upload without old/.
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD; bash ../make_copies.sh "$H/sub" /opt/venv22/bin/lumen-grade
ag() { # $1 dir, $2 upload, $3 prefix
  rm -rf "$1"; mkdir -p "$1/source" "$1/submission" "$1/results"; unzip -q "$H/autograder.zip" -d "$1/source"; cp -a "$2/." "$1/submission/"
}
for what in sub control; do
  src=$H/sub; [ $what = control ] && { rm -rf /tmp/r82-a05-ctl; cp -a $H/sub /tmp/r82-a05-ctl; rm -rf /tmp/r82-a05-ctl/old; src=/tmp/r82-a05-ctl; }
  echo "########## $what: root"; ag /tmp/r82-a05-ag-$what "$src"
  S=$(date +%s); (cd /tmp && TMPDIR=$RT_TMP LUMEN_AUTOGRADER_ROOT=/tmp/r82-a05-ag-$what LUMEN_PYTHON=/opt/venv22/bin/python bash /tmp/r82-a05-ag-$what/source/run_autograder > /tmp/r82-a05-ag-$what.out 2>&1); echo "[exit code $?] $(( $(date +%s) - S )) s"
  head -c 600 /tmp/r82-a05-ag-$what.out; echo
  python3 -c "import json,sys; r=json.load(open('/tmp/r82-a05-ag-$what/results/results.json')); print('score', r['score'], 'time', r['execution_time']); print(r['output'][-400:])"
  echo "########## $what: uid 65534"; ag /tmp/u65534/r82-a05-ag-$what "$src"; chown -R 65534 /tmp/u65534/r82-a05-ag-$what
  S=$(date +%s); (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP LUMEN_AUTOGRADER_ROOT=/tmp/u65534/r82-a05-ag-$what LUMEN_PYTHON=/tmp/uvenv22/bin/python LD_LIBRARY_PATH=/tmp/py3117/lib bash /tmp/u65534/r82-a05-ag-$what/source/run_autograder > /tmp/r82-a05-u-$what.out 2>&1); echo "[exit code $?] $(( $(date +%s) - S )) s"
  python3 -c "import json,sys; r=json.load(open('/tmp/u65534/r82-a05-ag-$what/results/results.json')); print('score', r['score'], 'time', r['execution_time']); print(r['output'][-400:])"
done
leftovers
