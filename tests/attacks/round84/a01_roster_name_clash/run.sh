#!/bin/bash
# a01: class named by NAME (as some LMS exports are). Mallory registers on the roster with the name of a
# classmate (Alice Smith) -- and in a second roster with the upper-cased email of a classmate, class named by email.
# Does Alice's honest folder lose its row?
cd "$(dirname "$0")"; source /work/round84/lib.sh
SOL=/work/scratch22/solutions/exercise3_scaling.py
build() { # $1 dir, folder names...
  d=$1; shift; rm -rf $d; mkdir -p $d
  for f in "$@"; do mkdir -p "$d/$f"; cp $SOL "$d/$f/"; done
}
run_level() { # $1 root|user
  W=$(mktemp -d /tmp/u65534/a01-XXXX); chown 65534:65534 $W
  build $W/byname "Alice Smith" "Bob Jones" "Mallory Evil"
  build $W/byemail "alice@uni.edu" "bob@uni.edu" "mallory@uni.edu"
  printf 'student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Alice Smith,mallory@uni.edu\n' > $W/roster_name.csv
  printf 'student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Mallory Evil,ALICE@uni.edu\n' > $W/roster_email.csv
  printf 'student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Mallory Evil,mallory@uni.edu\n' > $W/roster_honest.csv
  chown -R 65534:65534 $W
  for case in "byname roster_name" "byname roster_honest" "byemail roster_email" "byemail roster_honest"; do
    set -- $case
    echo "----- $1 with $2 ($lvl)"
    if [ $lvl = root ]; then root_grade batch $W/$1 --no-perf --roster $W/$2.csv --out $W/out-$1-$2/grades.csv --jobs 2 2>&1 | tail -4
    else user_grade batch $W/$1 --no-perf --roster $W/$2.csv --out $W/out-$1-$2/grades.csv --jobs 2 2>&1 | tail -4; fi
    cut -d, -f1-6,16-19 $W/out-$1-$2/grades.csv
  done
  rm -rf $W
}
lvl=root; echo "=== root"; run_level
lvl=user; echo "=== uid 65534"; run_level
leftovers
