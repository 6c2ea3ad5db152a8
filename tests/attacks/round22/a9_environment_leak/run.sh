#!/bin/bash
# a9: the grader's (and a batch's) environment is inherited by the confined child and handed back in the report.
HERE=$(cd "$(dirname "$0")" && pwd); source /work/round22/common.sh
export INSTRUCTOR_API_TOKEN=s3cr3t-token-123   # stands for any secret in the grading machine's environment
echo "== root: one grade, JSON report"; $ROOT_GRADE exercise3 --submission "$HERE" --no-perf --format json | grep -o 'LEAK[^"]*'
echo "== root: batch of two (mallory = this file, alice = the solution), feedback pages"
B=$(mktemp -d); mkdir -p $B/class/mallory $B/class/alice; cp "$HERE/exercise3_scaling.py" $B/class/mallory/
cp /work/scratch20/solutions/exercise3_scaling.py $B/class/alice/
(cd $B && $ROOT_GRADE batch class --out grades.csv --no-perf --feedback feedback | tail -2
 echo "-- mallory.html:"; grep -o 'LEAK[^<]*' feedback/mallory.html; echo "-- grades/mallory.json:"; grep -o 'LEAK[^"]*' grades/mallory.json
 echo "-- control: alice.html mentions the token? $(grep -c s3cr3t feedback/alice.html)")
rm -rf $B
setup_user_python
D=/tmp/u65534/a9; rm -rf $D; mkdir -p $D; cp "$HERE/exercise3_scaling.py" $D/; chown -R 65534:65534 /tmp/u65534
echo "== uid 65534: one grade, JSON report"; (cd /tmp/u65534 && as_user env INSTRUCTOR_API_TOKEN=s3cr3t-token-123 lumen-grade exercise3 --submission $D --no-perf --format json | grep -o 'LEAK[^"]*')
