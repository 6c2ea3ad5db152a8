#!/bin/bash
# run as uid 65534 in kit dir
K=$(cat /work/round80/kitpath)
exec setpriv --reuid=65534 --regid=65534 --clear-groups env -i HOME=/tmp/u65534 PATH=/usr/bin:/bin PIP_FIND_LINKS=/opt/wheels TERM=xterm bash -c "cd $K && $1"
