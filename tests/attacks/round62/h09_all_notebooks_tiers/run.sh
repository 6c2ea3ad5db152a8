#!/bin/bash
# lumen-grade all (WITH tiers) on the ten solutions as notebooks, root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
echo "=== root"; time root_grade all --submission "$PWD/sub"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r62-h09); time user_grade all --submission "$U"; rm -rf "$U"
leftovers
