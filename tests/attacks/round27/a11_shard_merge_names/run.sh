#!/bin/bash
# reproduce: a class of odd folder names (a formula, a dash, a name like a cut one, a 240-byte name, CJK with a
# space, `_shard` (the old manifest's name), `grades`), graded unsharded and as shards 0/2 + 1/2 then merged
cd "$(dirname "$0")"; source /work/round27/lib.sh
S="--no-perf --device cpu --jobs 2"
one() {  # $1: how to run lumen-grade, $2: class, $3: out folder
  $1 batch "$2" --out $3/all/grades.csv $S 2>&1 | tail -1
  $1 batch "$2" --shard 0/2 --out $3/s0/grades.csv $S 2>&1 | tail -1
  $1 batch "$2" --shard 1/2 --out $3/s1/grades.csv $S 2>&1 | tail -1
  $1 merge $3/s0 $3/s1 --out $3/merged.csv 2>&1 | tail -2
  if cmp -s $3/all/grades.csv $3/merged.csv; then echo "merged == unsharded"; else echo "DIFFER"; diff $3/all/grades.csv $3/merged.csv | head; fi
  cut -d, -f1-2,12-13 $3/merged.csv; ls $3/s0/grades $3/s1/grades
}
echo "=== root"; rm -rf /tmp/a11r; mkdir /tmp/a11r; one root_grade "$PWD/sub/class" /tmp/a11r
echo "=== uid 65534"; U=$(user_copy "$PWD/sub/class" a11-class); as_user mkdir -p /tmp/u65534/a11o; one user_grade "$U" /tmp/u65534/a11o
rm -rf /tmp/u65534/a11o; leftovers
