#!/bin/bash
# reproduce: lumen-grade batch (--no-perf, --class-report) of alice and mallory, as root and as uid 65534
cd "$(dirname "$0")"; source /work/round31/lib.sh
for who in root user; do
  if [ $who = root ]; then C=/tmp/r31-a21-class; O=/tmp/r31-a21-out; bash setup.sh $C; rm -rf $O; mkdir -p $O
    echo "=== root"; root_grade batch "$C" --out $O/grades.csv --no-perf --class-report -j 2
  else C=/tmp/u65534/a21-class; O=/tmp/u65534/a21-out; bash setup.sh $C; chown -R 65534:65534 $C; rm -rf $O; mkdir -p $O; chown 65534:65534 $O
    echo "=== uid 65534"; user_grade batch "$C" --out $O/grades.csv --no-perf --class-report -j 2
  fi
  echo "--- grades.csv"; cut -d, -f1-17 $O/grades.csv
  grep -o '"held[^"]*"' $O/grades/*.json | head -3; grep -c "held for your instructor" $O/grades/*.json
  rm -rf $C $O
done
leftovers
