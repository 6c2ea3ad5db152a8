#!/bin/bash
# reproduce: a class folder (as an LMS export or a script assembled it) where bob's entry is a symlink to
# the kit's solutions/ and carol's a symlink to alice's folder: batch grades the answer key as bob's work
cd "$(dirname "$0")"; bash ./setup.sh; source /work/round27/lib.sh
echo "=== root"; rm -rf /tmp/a07r; mkdir /tmp/a07r
root_grade batch "$PWD/sub/class" --out /tmp/a07r/grades.csv --no-perf --device cpu 2>&1 | tail -2
cut -d, -f1-5,13,14 /tmp/a07r/grades.csv; grep -h '"files"' -A2 /tmp/a07r/grades/bob.json | head -3
echo "=== uid 65534"; U=$(user_copy "$PWD/sub/class" a07-class); ln -sfn /work/scratch20/solutions $U/bob; ls -la $U
user_grade batch "$U" --out /tmp/u65534/a07-grades.csv --no-perf --device cpu 2>&1 | tail -2
cut -d, -f1-5,13,14 /tmp/u65534/a07-grades.csv; rm -rf /tmp/u65534/a07-grades*
leftovers
