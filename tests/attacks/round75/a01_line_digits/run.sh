#!/bin/bash
# grade exercise9 from the notebook ./sub/exercise9_head_patterns.ipynb as root and as uid 65534
cd "$(dirname "$0")"; source /work/round75/lib.sh
EX=${EX:-exercise9}
echo "=== root"; root_grade $EX --notebook "$PWD/sub/$(ls sub)" --no-perf "$@"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r75-$(basename "$PWD")); user_grade $EX --notebook "$U/$(ls sub)" --no-perf "$@"
rm -rf "$U"
leftovers
