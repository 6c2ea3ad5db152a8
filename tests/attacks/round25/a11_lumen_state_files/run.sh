#!/bin/bash
# The hint ladder's .lumen/ beside a submission, made hostile: ladder.json a FIFO, a link to /dev/zero,
# a directory, a huge bumps count, .lumen a plain file. `lumen-grade hint exercise4` must answer, not hang
# or trace back; the level stays capped by the course.
cd "$(dirname "$0")"; source /work/round25/lib.sh
variant() { # $1 folder, $2 kind
  local d=$1; rm -rf "$d/.lumen"; mkdir -p "$d/.lumen"
  case $2 in
    fifo) mkfifo "$d/.lumen/ladder.json";;
    devzero) ln -s /dev/zero "$d/.lumen/ladder.json";;
    dir) mkdir "$d/.lumen/ladder.json";;
    bumps) echo '{"version": 1, "exercises": {"exercise4": {"mask-inverted": {"versions": [], "bumps": 1000000000000000000000000000000}}}}' > "$d/.lumen/ladder.json";;
    file) rmdir "$d/.lumen"; echo junk > "$d/.lumen";;
  esac
}
for level in root user; do
  for kind in fifo devzero dir bumps file; do
    if [ $level = root ]; then d=/tmp/r25-a11-root; rm -rf $d; cp -r sub $d; variant $d $kind
      out=$(timeout 120 bash -c "source /work/round25/lib.sh; root_grade hint exercise4 --submission $d --no-color" 2>&1)
    else d=$(user_copy sub a11); variant $d $kind; chown -R 65534:65534 $d
      out=$(timeout 120 bash -c "source /work/round25/lib.sh; user_grade hint exercise4 --submission $d --no-color" 2>&1)
    fi
    echo "=== $level $kind (timeout rc if 124: $?)"
    echo "$out" | grep -E "hint|ladder|Traceback|Error|exit code" | head -6
  done
done
leftovers
