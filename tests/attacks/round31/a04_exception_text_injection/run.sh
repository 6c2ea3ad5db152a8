#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534, text + html + junit + gradescope formats
cd "$(dirname "$0")"; source /work/round31/lib.sh
echo "=== root text"; root_grade exercise3 --submission "$PWD/sub" --no-perf
for f in junit html gradescope; do root_grade exercise3 --submission "$PWD/sub" --no-perf --format $f --output /tmp/a04-root.$f >/dev/null; echo "--- root $f: lines with the forged text:"; grep -n -o ".\{0,60\}forged.\{0,60\}\|.\{0,40\}<script.\{0,40\}\|.\{0,30\}HYPERLINK.\{0,30\}" /tmp/a04-root.$f | head -5; done
echo "=== uid 65534 text"; U=$(user_copy "$PWD/sub" sub-a04); user_grade exercise3 --submission "$U" --no-perf
leftovers
