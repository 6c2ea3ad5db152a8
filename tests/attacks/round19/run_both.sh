#!/bin/bash
# usage: run_both.sh EXERCISE FOLDER [extra args]
ex=$1; dir=$(realpath $2); shift 2
chmod -R a+rX "$dir"
mkdir -p /tmp/u65534 && chown 65534 /tmp/u65534
echo "=== root ==="; (cd /work/scratch18 && /opt/venv18/bin/lumen-grade $ex --submission "$dir" "$@"); echo "rc=$?"
echo "=== uid 65534 ==="; setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp/u65534 TMPDIR=/tmp/u65534 PATH=/opt/venv18/bin:/usr/bin:/bin bash -c "cd /work/scratch18; lumen-grade $ex --submission '$dir' $*"; echo "rc=$?"
