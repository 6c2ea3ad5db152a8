#!/bin/bash
K=$(cat /work/round80/kitpath)
exec setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/u65534 PATH=$K/.venv/bin:/usr/bin:/bin TERM=xterm bash -c "cd /tmp/u65534/ta && $1"
