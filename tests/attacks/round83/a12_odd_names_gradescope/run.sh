#!/bin/bash
# a12: odd names in a Gradescope upload (gen.py): does gradescope-run always write results.json, name the files
# without control characters or bad UTF-8, refuse the FIFO and the link, and grade the nested exercise3 file? A
# folder name with newlines (holding an ignored copy of exercise3) forges lines of the summary.
cd "$(dirname "$0")"; source /work/round83/lib.sh
show() { echo "exit $1"; python3 - "$2/results/results.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("score", d["score"], "tests", len(d["tests"]))
print("output (end):"); print(d["output"][-900:])
bad = [c for c in json.dumps(d, ensure_ascii=False) if ord(c) < 32 and c not in "\n\t" or 0xD800 <= ord(c) < 0xE000 or c == "\x1b"]
print("control characters or surrogates in results.json:", len(bad))
PY
}
echo "=== root"
R=$RT_TMP/gs; python3 gen.py $R
(cd /tmp && TMPDIR=$RT_TMP timeout 300 /opt/venv20/bin/lumen-grade gradescope-run --root $R --exercise exercise3 --exercise exercise4 --exercise exercise5 --exercise exercise6 --no-perf > $RT_TMP/stdout.txt 2>&1); show $? $R
echo "stdout has control characters: $(tr -d '\n\t' < $RT_TMP/stdout.txt | LC_ALL=C grep -c '[[:cntrl:]]')"
rm -rf $R $RT_TMP/stdout.txt
echo "=== uid 65534"
python3 gen.py /tmp/r83a12; U=$(user_copy /tmp/r83a12 r83-a12-gs); rm -rf /tmp/r83a12
as_user env TMPDIR=$UT_TMP sh -c "cd /tmp/u65534 && timeout 300 lumen-grade gradescope-run --root $U --exercise exercise3 --exercise exercise4 --exercise exercise5 --exercise exercise6 --no-perf > $UT_TMP/stdout.txt 2>&1"; show $? $U
echo "stdout has control characters: $(tr -d '\n\t' < $UT_TMP/stdout.txt | LC_ALL=C grep -c '[[:cntrl:]]')"
rm -rf $U $UT_TMP/stdout.txt
leftovers
