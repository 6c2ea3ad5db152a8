#!/bin/bash
# batch + feedback pages + class report on a class whose folder names and code carry spreadsheet formulas
# and HTML/script: the CSV cells must not be formulas, the pages must not carry live markup.
cd "$(dirname "$0")"; source /work/round25/lib.sh
check() { # $1 out folder
  echo "--- grades.csv (student column)"; cut -d, -f1-2 "$1/grades.csv"
  echo "--- misconceptions.csv"; cat "$1/misconceptions.csv"
  echo "--- live markup in the HTML pages (raw <script or <img tags):"
  grep -l -E "<script|<img" "$1/class-report.html" "$1"/feedback/*.html || echo "none"
}
python3 make_class.py /tmp/r25-a04-class >/dev/null
echo "=== root"; (cd /tmp && TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade batch /tmp/r25-a04-class --out /tmp/r25-a04-out/grades.csv --no-perf --jobs 2 --feedback /tmp/r25-a04-out/feedback --class-report --force 2>&1 | tail -3)
check /tmp/r25-a04-out
d=$(user_copy /tmp/r25-a04-class a04-class); rm -rf /tmp/u65534/a04-out
echo "=== user"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP lumen-grade batch $d --out /tmp/u65534/a04-out/grades.csv --no-perf --jobs 2 --feedback /tmp/u65534/a04-out/feedback --class-report 2>&1 | tail -3)
check /tmp/u65534/a04-out
leftovers
