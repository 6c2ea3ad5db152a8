#!/bin/bash
# a1: exercise 10 whose rule-breaking path runs only when the grader's probe is not watching.
D=$(cd "$(dirname "$0")" && pwd); . "$D/../common.sh"; setup_user_python
cd /tmp
for who in root user; do
  echo "=== $who: lumen-grade exercise10 -v --submission $D/sub"
  if [ $who = root ]; then $ROOT_GRADE exercise10 -v --submission "$D/sub"; else as_user lumen-grade exercise10 -v --submission "$D/sub"; fi
  echo "exit code: $?"
  echo "=== $who: control (the unwatched path multiplied by 0): proves the value tests grade the whole-matrix path"
  if [ $who = root ]; then $ROOT_GRADE exercise10 --submission "$D/control"; else as_user lumen-grade exercise10 --submission "$D/control"; fi | head -4
done
for who in root user; do
  echo "=== $who: exercise1 variant (fused_project: three products unless watched) --submission $D/sub_ex1"
  if [ $who = root ]; then $ROOT_GRADE exercise1 --submission "$D/sub_ex1"; else as_user lumen-grade exercise1 --submission "$D/sub_ex1"; fi
  echo "exit code: $?"
done
