#!/bin/bash
# a8: exercise3's right code with a twist in its bytes (a coding line naming a bytes codec, a BOM beside
# latin-1, a NUL, CR-only lines, UTF-16): what each grades to, and whether the grader blames itself
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd); mkdir -p "$HERE/out"
for v in $(ls "$HERE/variants"); do
  root_grade exercise3 --submission "$HERE/variants/$v" --no-perf --format json > "$HERE/out/$v.root" 2>&1
  printf '%-18s root %s\n' $v "$(python3 "$HERE/summarize.py" "$HERE/out/$v.root")"
  U=$(user_copy "$HERE/variants/$v" a8-$v)
  user_grade exercise3 --submission "$U" --no-perf --format json > "$HERE/out/$v.user" 2>&1; rm -rf "$U"
  printf '%-18s user %s\n' $v "$(python3 "$HERE/summarize.py" "$HERE/out/$v.user")"
done
echo "== what Python itself says of coding_hex:"; /opt/venv20/bin/python "$HERE/variants/coding_hex/exercise3_scaling.py" 2>&1 | tail -1
leftovers
