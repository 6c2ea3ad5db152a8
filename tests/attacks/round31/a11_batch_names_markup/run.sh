#!/bin/bash
# reproduce: batch-grade a two-student class as root and as uid 65534, with feedback pages and the class report
cd "$(dirname "$0")"; source /work/round31/lib.sh
for who in root user; do
  if [ $who = root ]; then C=/tmp/r31-a11-class; bash setup.sh $C; O=/tmp/r31-a11-out; rm -rf $O; mkdir -p $O
    echo "=== root"; root_grade batch "$C" --out $O/grades.csv --no-perf --feedback $O/feedback --class-report -j 1
  else C=/tmp/u65534/a11-class; bash setup.sh $C; chown -R 65534:65534 $C; O=/tmp/u65534/a11-out; rm -rf $O; mkdir -p $O; chown 65534:65534 $O
    echo "=== uid 65534"; user_grade batch "$C" --out $O/grades.csv --no-perf --feedback $O/feedback --class-report -j 1
  fi
  echo "--- grades.csv"; cat $O/grades.csv | cut -c1-300
  echo "--- raw markup in html files (unescaped <img or <script):"; grep -l "<img src=x\|<script>alert" $O/*.html $O/feedback/*.html 2>/dev/null || echo none
  ls $O $O/feedback | head
done
leftovers
