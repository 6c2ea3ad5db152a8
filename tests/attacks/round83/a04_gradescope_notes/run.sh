#!/bin/bash
# a04: a03's upload on the Gradescope path (`lumen-grade gradescope-run`, what run_autograder calls):
# exercise3_scaling.py (the solution) at the top, N=2000 empty notebooks exercise3_<200 z>_K.ipynb under a
# ~3500-character folder chain. Each ignored copy is named with its whole path in results.json's output
# and on stdout: results.json's size grows ~3.7 KB per copy of a ~0-byte file.
cd "$(dirname "$0")"; source /work/round83/lib.sh
N=${N:-2000}
show() { echo "exit $1"; ls -la "$2/results/results.json" | awk '{print "results.json", $5, "bytes"}'; echo "stdout $(wc -c < "$3") bytes";
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('score', d['score'], 'output chars', len(d['output']), 'tests', len(d['tests']))" "$2/results/results.json"; }
echo "=== root"
R=$RT_TMP/gs; python3 gen.py $R/submission $N
(cd /tmp && TMPDIR=$RT_TMP /usr/bin/time -f "max RSS %M KB, %e s" /opt/venv20/bin/lumen-grade gradescope-run --root $R --exercise exercise3 --no-perf > $RT_TMP/stdout.txt 2>$RT_TMP/time.txt); show $? $R $RT_TMP/stdout.txt; tail -1 $RT_TMP/time.txt
rm -rf $R $RT_TMP/stdout.txt $RT_TMP/time.txt
echo "=== uid 65534"
python3 gen.py /tmp/r83a04/submission $N; U=$(user_copy /tmp/r83a04 r83-a04-gs); rm -rf /tmp/r83a04
as_user env TMPDIR=$UT_TMP sh -c "cd /tmp/u65534 && lumen-grade gradescope-run --root $U --exercise exercise3 --no-perf > $UT_TMP/stdout.txt 2>&1"; show $? $U $UT_TMP/stdout.txt
rm -rf $U $UT_TMP/stdout.txt
leftovers
