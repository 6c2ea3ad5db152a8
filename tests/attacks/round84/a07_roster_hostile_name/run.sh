#!/bin/bash
# a07: my own roster registration (name, email) is hostile: HTML, a newline + a forged CSV row, formulas behind a
# space/tab/CR, bidi overrides. Does grades.csv keep one row per student with the right cells, does the class
# report (--names) or a feedback page run/show markup?
cd "$(dirname "$0")"; source /work/round84/lib.sh
SOL=/work/scratch22/solutions/exercise3_scaling.py
run_level() {
  W=$(mktemp -d /tmp/u65534/a07-XXXX); mkdir -p $W/class/{1001,1002,1003,1004}
  for s in 1001 1002 1003 1004; do cp $SOL $W/class/$s/; done
  sed 's|/ math.sqrt(d_k)|/ d_k|' $SOL > $W/class/1002/exercise3_scaling.py   # 1002 shows a misconception (example)
  cp roster.csv $W/; chown -R 65534:65534 $W
  args="batch $W/class --no-perf --roster $W/roster.csv --out $W/out/grades.csv --feedback $W/out/fb --class-report --stubs /work/scratch22/exercises"
  if [ $lvl = root ]; then root_grade $args 2>&1 | tail -2; else user_grade $args 2>&1 | tail -2; fi
  ( if [ $lvl = root ]; then root_grade class-report $W/out/grades --roster $W/roster.csv --names --out $W/out/named --submissions $W/class --stubs /work/scratch22/exercises; else user_grade class-report $W/out/grades --roster $W/roster.csv --names --out $W/out/named --submissions $W/class --stubs /work/scratch22/exercises; fi ) 2>&1 | tail -2
  python3 - $W/out <<'PY'
import csv, sys, glob, re
out = sys.argv[1]
rows = list(csv.DictReader(open(out + "/grades.csv", newline="", encoding="utf-8")))
print("grades.csv rows:", len(rows))
for r in rows: print("  ", repr(r["student_id"]), repr(r["name"])[:90], repr(r["email"])[:60], r["status"], r["total"])
for f in sorted(glob.glob(out + "/fb/*.html")) + [out + "/class-report.html", out + "/named/class-report.html"]:
    t = open(f, encoding="utf-8").read()
    print(f.split("/out/")[1], "raw <img:", "<img" in t, " raw <script:", "<script" in t, " U+202E:", "\u202e" in t)
for f in [out + "/misconceptions.csv", out + "/named/misconceptions.csv"]:
    print(f.split("/out/")[1], "rows:", len(list(csv.reader(open(f, newline="", encoding="utf-8")))))
PY
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
