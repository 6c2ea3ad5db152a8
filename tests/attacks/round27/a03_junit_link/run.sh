#!/bin/bash
# reproduce: a student's repository (as GitHub Actions / GitLab CI grade it, `--format junit`) holds
# exercise4_masking.py as a symlink to /dev/zero (git stores symlinks). The JUnit writer reads the
# "file" of every exercise with Path.read_bytes(), following the link: the grader's memory grows
# without bound. A watchdog kills the grader at 4 GiB RSS or 90 s so the machine stays up.
cd "$(dirname "$0")"; bash ./setup.sh; source /work/round27/lib.sh
watch_run() {  # run "$@" in the background; report peak RSS of its process tree, kill at 4 GiB
  "$@" > out.xml 2> err.txt & local pid=$! peak=0 t=0 killed=no
  while kill -0 $pid 2>/dev/null; do
    rss=$(ps -o rss= --ppid $pid -p $pid 2>/dev/null | awk '{s+=$1} END {print s+0}')
    for c in $(pgrep -P $pid); do r=$(ps -o rss= --ppid $c -p $c 2>/dev/null | awk '{s+=$1} END {print s+0}'); rss=$((rss+r)); done
    [ "$rss" -gt "$peak" ] && peak=$rss
    if [ "$rss" -gt 4194304 ] || [ $t -ge 450 ]; then killed="yes (rss ${rss} KiB after $((t/5)) s)"; pkill -KILL -P $pid; kill -KILL $pid; pkill -KILL -P $pid; break; fi
    sleep 0.2; t=$((t+1))
  done
  wait $pid 2>/dev/null; echo "exit $?; peak RSS of the grader's tree: $((peak/1024)) MiB; killed by the watchdog: $killed"
  echo "junit bytes written: $(wc -c < out.xml)"; tail -3 err.txt
}
echo "=== control: root, --format json (same folder)"; watch_run env TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade all --submission "$PWD/sub" --no-perf --format json --device cpu; grep -o "\"error\": \"exercise4[^\"]*\"" out.xml | head -2
echo "=== root"; watch_run env TMPDIR=$RT_TMP /opt/venv20/bin/lumen-grade all --submission "$PWD/sub" --no-perf --format junit --device cpu
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" sub-a03); watch_run as_user env TMPDIR=$UT_TMP lumen-grade all --submission "$U" --no-perf --format junit --device cpu
ls -la $U
# variant: a FIFO named as an exercise (no link needed): the JUnit writer blocks on it for ever
echo "=== FIFO variant, root (timeout 40 s)"; (F="$PWD/sub_fifo"; cd /tmp && TMPDIR=$RT_TMP timeout 40 /opt/venv20/bin/lumen-grade all --submission "$F" --no-perf --format junit --device cpu > /dev/null 2>&1); echo "exit $? (124 = still blocked after 40 s)"
echo "=== FIFO variant, uid 65534 (timeout 40 s)"; U=$(user_copy "$PWD/sub_fifo" sub-a03f); (cd /tmp/u65534 && as_user env TMPDIR=$UT_TMP timeout 40 lumen-grade all --submission "$U" --no-perf --format junit --device cpu > /dev/null 2>&1); echo "exit $? (124 = still blocked after 40 s)"
leftovers
