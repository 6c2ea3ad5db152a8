#!/bin/bash
# reproduce: batch + class-report --similarity of 4 students: alice (honest), carol (alice's file copied),
# bob (alice's file copied, re-encoded as UTF-7 with a coding line), dave (other code); as root and as uid 65534
cd "$(dirname "$0")"; source /work/round77/lib.sh
show() { /opt/venv20/bin/python -c "
import json,sys; s=json.load(open(sys.argv[1]))['similarity']
print('code note:', s['code_note']); [print('lead:', l['students'], l['similarity'], l['tokens']) for l in s['code'] or []]" "$1"; }
echo "=== root"; O=/tmp/r77-a07-out; rm -rf $O; mkdir -p $O
root_grade batch "$PWD/sub" --out $O/grades.csv --no-perf -j 2; cat $O/grades.csv | cut -d, -f1-2,11-15
root_grade class-report $O/grades --submissions "$PWD/sub" --stubs /work/scratch20/exercises --similarity --out $O/report
show $O/report/class-report.json; rm -rf $O
echo "=== uid 65534"; C=$(user_copy "$PWD/sub" r77-a07-class); O=/tmp/u65534/r77-a07-out; mkdir -p $O; chown 65534:65534 $O
user_grade batch "$C" --out $O/grades.csv --no-perf -j 2; cat $O/grades.csv | cut -d, -f1-2,11-15
user_grade class-report $O/grades --submissions "$C" --stubs /work/scratch20/exercises --similarity --out $O/report
show $O/report/class-report.json; rm -rf "$C" $O
leftovers
