#!/bin/bash
# a02: Mallory (1003) writes classmates' names in her code (identifiers and strings, not comments) in forms the
# class report's scrubber may not catch; her file is the only one showing "scale-by-dk", so it is the example.
cd "$(dirname "$0")"; source /work/round84/lib.sh
run_level() {
  W=$(mktemp -d /tmp/u65534/a02-XXXX); cp -a class roster.csv $W/; chown -R 65534:65534 $W
  args="batch $W/class --no-perf --roster $W/roster.csv --out $W/out/grades.csv --class-report --stubs /work/scratch22/exercises"
  if [ $lvl = root ]; then root_grade $args 2>&1 | tail -2; else user_grade $args 2>&1 | tail -2; fi
  python3 - $W/out <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/class-report.json"))
def walk(o):
    if isinstance(o, dict):
        if "lines" in o and isinstance(o["lines"], list): print("EXAMPLE", o.get("exercise"), *o["lines"], sep="\n   ")
        for v in o.values(): walk(v)
    elif isinstance(o, list):
        for v in o: walk(v)
walk(s)
html = open(sys.argv[1] + "/class-report.html", encoding="utf-8").read()
import unicodedata, html as H
text = unicodedata.normalize("NFKC", H.unescape(html)).replace("\u200b", "")
for name in ("alicesmith", "ALICESMITH", "Alice Smith", "Zoë", "Brontë", "Li", "wei.li", "1001", "Mallory"):
    print(f"{name!r} in the page (after NFKC, entities, zero-width removed): {name.lower() in text.lower()}")
PY
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
