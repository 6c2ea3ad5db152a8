#!/bin/bash
# the files git should not carry, made again: four "old" copies of exercise 3 of 2 MiB each (the released stub's
# first lines, then `a=1` lines) into DIR/old/v0..v3 (a03: class/a-hostile, a05: sub), and a05's Gradescope bundle
# (`lumen-grade gradescope-bundle --exercise 3`, with the lumen-grade given as $2)
dir=$1
for k in 0 1 2 3; do
  mkdir -p "$dir/old/v$k"
  python3 -c "import sys; sys.stdout.write('def scale_scores(scores, d_k):\n    raise NotImplementedError\n' + 'a=1\n' * 524268)" \
    > "$dir/old/v$k/exercise3_scaling.py"
done
[ -z "$2" ] || [ -f "$(dirname "$dir")/autograder.zip" ] || \
  (cd "$(dirname "$dir")" && "$2" gradescope-bundle --exercise 3 --out autograder.zip > /dev/null)
