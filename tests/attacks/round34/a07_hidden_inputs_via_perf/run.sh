#!/bin/bash
# reproduce: grade exercise1 from ./sub with show_hidden_tests = false, WITH the performance stage, root and 65534
cd "$(dirname "$0")"; source /work/round34/lib.sh
echo "=== root"; root_grade exercise1 --submission "$PWD/sub" --course "$PWD/lumen-course.toml"
U=$(user_copy "$PWD/sub" sub-a07); cp lumen-course.toml /tmp/u65534/a07-course.toml; chown 65534 /tmp/u65534/a07-course.toml
echo "=== uid 65534"; user_grade exercise1 --submission "$U" --course /tmp/u65534/a07-course.toml
leftovers
