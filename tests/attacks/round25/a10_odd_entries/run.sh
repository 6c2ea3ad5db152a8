#!/bin/bash
# batch on students whose exercise "file" is a FIFO (with a real copy deeper), a socket, a directory,
# an unreadable file (mode 000), a link to a folder with a symlink loop, a device node, a file in an
# unreadable folder: no hang, one line each, nobody else's row touched.
cd "$(dirname "$0")"; source /work/round25/lib.sh
./make_class.sh /tmp/r25-a10-class 2>&1
echo "=== root"; (cd /tmp && TMPDIR=$RT_TMP timeout 600 /opt/venv20/bin/lumen-grade batch /tmp/r25-a10-class --out /tmp/r25-a10-out/grades.csv --no-perf --jobs 2 --force 2>&1 | tail -2)
cut -d, -f1,2,5,13,18- /tmp/r25-a10-out/grades.csv
rm -rf /tmp/u65534/a10-class /tmp/u65534/a10-out; ./make_class.sh /tmp/u65534/a10-class 2>&1; chown -R -h 65534:65534 /tmp/u65534/a10-class
chmod 000 /tmp/u65534/a10-class/unreadable/exercise3_scaling.py /tmp/u65534/a10-class/unreadable_dir/sub
echo "=== user"; (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 600 lumen-grade batch /tmp/u65534/a10-class --out /tmp/u65534/a10-out/grades.csv --no-perf --jobs 2 2>&1 | tail -2)
cut -d, -f1,2,5,13,18- /tmp/u65534/a10-out/grades.csv
leftovers
