#!/bin/bash
# reproduce: `batch --jobs 2 --timeout 10` of a class where alice's files start 60 busy threads each
# (within the 64-thread cap) and stall; bob hands in the solutions of exercises 1-4.
# baseline: bob alone; then the class. Compare bob's row.
cd "$(dirname "$0")"; source /work/round27/lib.sh
B="--jobs 2 --timeout 10 --device cpu"
rows() { cut -d, -f1-13,15,16 "$1"; }
echo "=== root, baseline (bob alone)"; rm -rf /tmp/a06r; mkdir -p /tmp/a06r/only; cp -a sub/class/bob /tmp/a06r/only/
root_grade batch /tmp/a06r/only --out /tmp/a06r/base.csv $B 2>&1 | tail -2; rows /tmp/a06r/base.csv
echo "=== root, class (alice + bob)"; root_grade batch "$PWD/sub/class" --out /tmp/a06r/class.csv $B 2>&1 | tail -3; rows /tmp/a06r/class.csv
echo "=== uid 65534, baseline"; U=$(user_copy "$PWD/sub/class" a06-class); mkdir -p /tmp/u65534/a06o; cp -a $U/bob /tmp/u65534/a06o/; chown -R 65534:65534 /tmp/u65534/a06o
user_grade batch /tmp/u65534/a06o --out /tmp/u65534/a06-base.csv $B 2>&1 | tail -2; rows /tmp/u65534/a06-base.csv
echo "=== uid 65534, class"; user_grade batch "$U" --out /tmp/u65534/a06-class.csv $B 2>&1 | tail -3; rows /tmp/u65534/a06-class.csv
rm -rf /tmp/u65534/a06o /tmp/u65534/a06-*; leftovers
