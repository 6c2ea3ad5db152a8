#!/bin/bash
# a04: s002's exercise3 spins forever at import (4 threads, tries fork/setsid and a detached subprocess);
# the batch is stopped with SIGTERM after 12 s, the gradebook's pending rows read, then the batch resumed.
cd "$(dirname "$0")"; source /work/round82/lib.sh
H=$PWD
one() { # $1 label, $2 run-prefix, $3 class, $4 out
  echo "=== $1: batch, SIGTERM at 12 s"
  $2 lumen-grade batch "$3" --out "$4/grades.csv" --no-perf --jobs 2 --timeout 20 > "$4/log1" 2>&1 &
  sleep 12; BP=$(pgrep -n -f "lumen.grade.*batch $3" ); echo "batch pid: $BP"; kill -TERM $BP; wait $!; echo "[exit code $?]"
  cat "$4/log1" | tail -4
  cut -d, -f1-2,5,13-15,19- "$4/grades.csv"
  sleep 2; echo "processes of the run still alive: $(ps -eo pid,user,etimes,args | grep -E 'grader|sleep 1000' | grep -v grep | grep -c .)"
  ps -eo pid,user,etimes,args | grep -E 'sleep 1000|python.*grader' | grep -v grep | head -5
  echo "=== $1: resume"
  $2 lumen-grade batch "$3" --out "$4/grades.csv" --no-perf --jobs 2 --timeout 20 2>&1 | tail -5; echo "[exit code ${PIPESTATUS[0]}]"
  cut -d, -f1-2,5,13-15,19- "$4/grades.csv"
}
rm -rf /tmp/r82-a04-root; mkdir -p /tmp/r82-a04-root
(cd /tmp && export TMPDIR=$RT_TMP PATH=/opt/venv22/bin:$PATH; one root "" "$H/class" /tmp/r82-a04-root)
C=$(user_copy "$H/class" r82-a04-class); rm -rf /tmp/u65534/r82-a04-out; mkdir -p /tmp/u65534/r82-a04-out; chown 65534 /tmp/u65534/r82-a04-out
(cd /tmp/u65534 && one "uid 65534" "as_user env TMPDIR=$UT_TMP" "$C" /tmp/u65534/r82-a04-out)
leftovers
