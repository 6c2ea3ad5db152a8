#!/bin/bash
# a9: in a batch (-j 2), alice's code signals every process, reads /proc, writes shared folders; bob must get 21/21
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round24/lib.sh
for who in root user; do
  if [ $who = root ]; then C="$HERE/class"; O=/tmp/a9out; rm -rf $O
    echo "### root"; root_grade batch "$C" --out $O/grades.csv --no-perf -j 2 2>&1 | tail -3
  else C=$(user_copy "$HERE/class" a9class); O=/tmp/u65534/a9out; rm -rf $O
    echo "### uid 65534"; user_grade batch "$C" --out $O/grades.csv --no-perf -j 2 2>&1 | tail -3; fi
  cut -d, -f1,2,5,13,16 $O/grades.csv
  grep -o 'kill(.\{1,400\}' $O/grades/alice.json | head -1 | cut -c1-900
  ls -la /tmp/alice_was_here /dev/shm/x /var/tmp/x 2>&1 | sed 's/^/  /'
  rm -rf $O
done
leftovers
