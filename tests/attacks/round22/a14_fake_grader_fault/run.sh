#!/bin/bash
# a14: a student's exception class named GraderFault is reported as the grader's own fault (exercise 3).
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
echo "== root"; $ROOT_GRADE exercise3 --submission "$HERE" --no-perf
setup_user_python
D=/tmp/u65534/a14; rm -rf $D; mkdir -p $D; cp "$HERE/exercise3_scaling.py" $D/; chown -R 65534:65534 /tmp/u65534
echo "== uid 65534"; (cd /tmp/u65534 && as_user lumen-grade exercise3 --submission $D --no-perf)
