#!/bin/bash
# a09: mutation testing: plausible one-line mistakes of the solutions (mutants.py, made by gen.py into subs/),
# each graded alone (--no-perf); a mutant at full points is a mistake the suites cannot tell apart
cd "$(dirname "$0")"; source /work/round84/lib.sh
python3 gen.py
for d in subs/*/; do
  label=$(basename $d); n=$(python3 -c "import sys; sys.path.insert(0,'.'); from mutants import M; print([m[1] for m in M if m[0]=='$label'][0])")
  r=$(root_grade $n --submission "$PWD/$d" --no-perf 2>&1 | grep -E "^(✓|✗) exercise" | head -1)
  echo "root  $label: $r"
  if [ "${LEVELS:-both}" = both ] && [[ "$r" == ✓* ]]; then
    U=$(user_copy "$PWD/$d" r84-a09-$label); r2=$(user_grade $n --submission "$U" --no-perf 2>&1 | grep -E "^(✓|✗) exercise" | head -1); rm -rf "$U"
    echo "uid65534 $label: $r2"
  fi
done
leftovers
