#!/bin/bash
# reproduce: `lumen-grade batch` of a class (honest + odd tree) as root and as uid 65534; rows, exit codes, leftovers
cd "$(dirname "$0")"; source /work/round77/lib.sh; bash make_odd.sh
echo "=== root"; rm -rf /tmp/r77-a06-out; mkdir -p /tmp/r77-a06-out
root_grade batch "$PWD/sub" --out /tmp/r77-a06-out/grades.csv --no-perf -j 2
cat /tmp/r77-a06-out/grades.csv; ls /tmp/r77-a06-out/grades
/opt/venv20/bin/python -c "import json;r=json.load(open('/tmp/r77-a06-out/grades/odd.json'));print(r['status'],r['message']);print('\n'.join(r['files']))"
echo "=== uid 65534"; C=$(user_copy "$PWD/sub" r77-a06-class); mkdir -p /tmp/u65534/r77-a06-out; chown 65534:65534 /tmp/u65534/r77-a06-out
user_grade batch "$C" --out /tmp/u65534/r77-a06-out/grades.csv --no-perf -j 2
cat /tmp/u65534/r77-a06-out/grades.csv
/opt/venv20/bin/python -c "import json;r=json.load(open('/tmp/u65534/r77-a06-out/grades/odd.json'));print(r['status'],r['message']);print('\n'.join(r['files']))"
rm -rf "$C" /tmp/u65534/r77-a06-out /tmp/r77-a06-out
leftovers
