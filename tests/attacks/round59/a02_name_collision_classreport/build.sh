#!/bin/bash
# $1: class folder; $2: "collide" (alice's folder has a tab, bob's is literally alice%09b) or "control"
C=$1; rm -rf "$C"; mkdir -p "$C"; S=$(dirname "$0")/src
if [ "$2" = collide ]; then A="$(printf 'alice\tb')"; B='alice%09b'; else A='alice_b'; B='bob'; fi
mkdir "$C/$A" "$C/$B" "$C/carol"
cp $S/A.py "$C/$A/exercise3_scaling.py"; cp $S/B.py "$C/$B/exercise3_scaling.py"; cp $S/C.py "$C/carol/exercise3_scaling.py"
