#!/bin/bash
# a9: bob's folder holds `.lumen` as a link to alice's `.lumen` (or to any folder): grading bob's folder
# (a TA looping over the class with lumen-grade, as root or as one user) reads and rewrites alice's
# hint-ladder state through it, so alice's hints climb without her attempts; and ladder.json is written
# into whatever folder the link names.
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
level_of_alice() { grep -o 'hint [0-9] of [0-9]' | head -1; }
scenario() {  # scenario LEVEL CLASS_DIR MODE(attack|control)
  local L=$1 C=$2 M=$3 G
  rm -rf "$C"; mkdir -p "$C/alice" "$C/bob" "$C/instructor"
  cp "$HERE/mistake_exercise3_scaling.py" "$C/alice/exercise3_scaling.py"
  cp "$HERE/bob_exercise3_scaling.py" "$C/bob/exercise3_scaling.py"
  [ $M = attack ] && ln -s ../alice/.lumen "$C/bob/.lumen"
  [ $L = user ] && chown -hR 65534:65534 "$C"
  if [ $L = root ]; then G=root_grade; else G=user_grade; fi
  echo "-- alice graded (1st attempt): $($G exercise3 --submission $C/alice --no-perf | level_of_alice)"
  $G exercise3 --submission $C/bob --no-perf > /dev/null
  $G hint exercise3 --submission $C/bob > /dev/null
  $G hint exercise3 --submission $C/bob > /dev/null
  $G hint exercise3 --submission $C/bob > /dev/null
  echo "-- bob graded once and asked 'lumen-grade hint' three times"
  echo "-- alice graded again, same file: $($G exercise3 --submission $C/alice --no-perf | level_of_alice)"
  echo "-- alice's ladder.json now:"; tr -d ' \n' < "$C/alice/.lumen/ladder.json"; echo
  echo "-- bob's .lumen: $(ls -ld $C/bob/.lumen 2>/dev/null | awk '{print $1, $NF}')"
}
echo "===== ROOT control (bob has no link)"; scenario root /tmp/a9-root-class control
echo "===== ROOT attack"; scenario root /tmp/a9-root-class attack
echo "===== USER control"; scenario user /tmp/u65534/a9-class control
echo "===== USER attack"; scenario user /tmp/u65534/a9-class attack
# the same link to a folder outside the class: the grader writes ladder.json there
C=/tmp/a9-out; rm -rf $C; mkdir -p $C/bob /tmp/a9-instructor-folder; cp "$HERE/bob_exercise3_scaling.py" $C/bob/exercise3_scaling.py
ln -s /tmp/a9-instructor-folder $C/bob/.lumen
root_grade exercise3 --submission $C/bob --no-perf > /dev/null
echo "===== ROOT: .lumen -> /tmp/a9-instructor-folder (root-owned, 0755): now holds: $(ls /tmp/a9-instructor-folder)"
rm -rf /tmp/a9-root-class /tmp/u65534/a9-class $C /tmp/a9-instructor-folder; leftovers
