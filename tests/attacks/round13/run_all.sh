#!/bin/bash
# usage: run_all.sh OUTDIR   (run as root, or via setpriv as uid 65534)
O=${1:-/tmp/r13}; mkdir -p $O; cd /work/scratch13; G=/opt/venv13/bin/lumen-grade; R=/work/round13
$G exercise5 --submission $R/a01_trail_newline --no-perf --hints all --format gradescope --output $O/a01.gs >/dev/null 2>&1
$G exercise5 --submission $R/a01_trail_newline --no-perf --hints all > $O/a01.txt 2>&1
python3 -c "import json;d=json.load(open('$O/a01.gs'));print('a01', d['score'], [t['output'][t['output'].find('CASTLINE'):][:160] for t in d['tests'] if 'CASTLINE' in t.get('output','')][:1])"
head -1 $O/a01.txt
$G exercise5 --submission $R/a02_probe_reads --no-perf --format json --output $O/a02.json >/dev/null 2>&1
python3 -c "import json;d=json.load(open('$O/a02.json'));print('a02', d['containment'] if 'containment' in d else '', d['exercises'][0]['output'][:600])"
for w in base cheat; do $G exercise10 --submission $R/a03_probe_reply_forge/$w 2>&1 | sed -n '1p;3p'; done
for w in base cheat; do $G exercise4 --submission $R/a04_stand_in_forge/$w --no-perf 2>&1 | sed -n '1p;3p'; done
$G exercise5 --submission $R/a05_syscalls --no-perf --format json --output $O/a05.json >/dev/null 2>&1
python3 -c "import json;d=json.load(open('$O/a05.json'));print('a05', d['exercises'][0]['output'][:1500])"
$G exercise5 --submission $R/a06_exhaust --no-perf --memory-limit 1G --format json --output $O/a06.json >/dev/null 2>&1
python3 -c "import json;d=json.load(open('$O/a06.json'));print('a06', d['exercises'][0]['output'][:700])"
rm -rf $O/a07; $G batch $R/a07_dirlink_classmate/class --out $O/a07/grades.csv --no-perf >/dev/null 2>&1; echo a07; cat $O/a07/grades.csv | cut -d, -f1,2,7,13,18
rm -rf $O/a08; $G batch $R/a08_batch_forged_class/class --out $O/a08/grades.csv --no-perf -j 3 --class-report --feedback $O/a08/fb >/dev/null 2>&1; echo a08; cut -d, -f1,2,6,7,12,13 $O/a08/grades.csv; cut -d, -f1,2 $O/a08/misconceptions.csv
rm -rf $O/a09; $G batch $R/a09_batch_hog_and_snoop/class --out $O/a09/grades.csv -j 2 >/dev/null 2>&1; echo a09; cut -d, -f1,2,7,13,16,17 $O/a09/grades.csv
python3 -c "import json;d=json.load(open('$O/a09/grades/mallory.json')); e=[x for x in d['report']['exercises'] if x['id']=='exercise5'][0]; print(e['output'][:900])"
/usr/bin/time -v $G exercise5 --submission $R/a10_judge_memory --no-perf 2>&1 | egrep "Maximum resident|exercise5 "
