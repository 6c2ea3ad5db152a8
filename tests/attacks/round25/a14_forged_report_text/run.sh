#!/bin/bash
# A wrong exercise 3 that prints, at import, a fake passing report block ('✓ exercise3 ... 21/21 on par', 'Total: 21/21') followed by 60 blank lines, to push the real verdict away.
cd "$(dirname "$0")"; source /work/round25/lib.sh
echo "=== root"; root_grade exercise3 --submission $PWD/sub --no-color --no-perf 2>&1 | tail -${TAIL:-25}
d=$(user_copy sub a14_forged_report_text); echo "=== user (uid 65534)"; user_grade exercise3 --submission $d --no-color --no-perf 2>&1 | tail -${TAIL:-25}
leftovers
