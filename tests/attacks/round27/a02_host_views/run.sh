#!/bin/bash
# reproduce: another user (uid 1000) holds a unix socket in its own 0700 folder and a TCP listener;
# the student's code, graded as root and as uid 65534, reads their names from /proc/net and host pids from /sys
cd "$(dirname "$0")"; source /work/round27/lib.sh
install -d -m 0700 -o 1000 -g 1000 /tmp/zz-cloudsdk-private
LD_LIBRARY_PATH=/tmp/py3117/lib setpriv --reuid=1000 --regid=1000 --clear-groups /tmp/uvenv/bin/python -c '
import socket,time
u=socket.socket(socket.AF_UNIX); u.bind("/tmp/zz-cloudsdk-private/exam-answers-server.sock"); u.listen()
t=socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("127.0.0.1", 47123)); t.listen()
time.sleep(60)' & L=$!
sleep 1
echo "as 65534 outside the grader: ls /tmp/zz-cloudsdk-private -> $(as_user ls /tmp/zz-cloudsdk-private 2>&1)"
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf | sed -n '/printed/,/^$/p'
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-a02); user_grade exercise3 --submission "$U" --no-perf | sed -n '/printed/,/^$/p'
kill $L; rm -rf /tmp/zz-cloudsdk-private
leftovers
