#!/bin/bash
# reproduce: grade exercise3 from ./sub as root and as uid 65534, with a course file hiding the hidden checks
cd "$(dirname "$0")"; source /work/round32/lib.sh
echo "=== root"; root_grade exercise3 --submission "$PWD/sub" --no-perf -v --course "$PWD/course.toml"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-$(basename "$PWD")); cp course.toml /tmp/u65534/a10course.toml; chown 65534 /tmp/u65534/a10course.toml
user_grade exercise3 --submission "$U" --no-perf -v --course /tmp/u65534/a10course.toml
rm -f /tmp/u65534/a10course.toml; leftovers
