#!/bin/bash
# a14: exercise3's right code plus one line `x = 1 + 1 + … + 1` (3000 terms). The child cannot compile it
# (RecursionError: the file fails, fairly); the JUnit report then parses the file with `ast` in the judge
# (junit._function_lines), which catches OSError/SyntaxError/ValueError only: RecursionError crashes the
# report. Control: the same file with `x = 1 + 1 + 1`.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
for who in attack control; do
  for fmt in junit text json; do
    out=$(mktemp); rm -f /tmp/a14-report.xml
    root_grade exercise3 --submission "$HERE/$who" --no-perf --format $fmt --output /tmp/a14-report.$fmt > "$out" 2>&1
    echo "ROOT $who $fmt: $(tail -1 "$out") tracebacks=$(grep -c Traceback "$out") $(grep -m1 -o 'RecursionError.*' "$out" | cut -c1-70) report file: $(ls /tmp/a14-report.$fmt 2>/dev/null || echo none)"
    rm -f /tmp/a14-report.$fmt
    U=$(user_copy "$HERE/$who" a14-$who)
    user_grade exercise3 --submission "$U" --no-perf --format $fmt --output /tmp/u65534/a14-report.$fmt > "$out" 2>&1
    echo "USER $who $fmt: $(tail -1 "$out") tracebacks=$(grep -c Traceback "$out") $(grep -m1 -o 'RecursionError.*' "$out" | cut -c1-70) report file: $(ls /tmp/u65534/a14-report.$fmt 2>/dev/null || echo none)"
    rm -rf "$U" /tmp/u65534/a14-report.$fmt "$out"
  done
done
leftovers
