#!/bin/bash
# honest notebooks of exercises 5 and 8 graded WITH tiers (lumen-grade all), root and uid 65534
cd "$(dirname "$0")"; source /work/round62/lib.sh
echo "=== root"; root_grade all --submission "$PWD/sub"
echo "=== uid 65534"; U=$(user_copy "$PWD/sub" r62-h06); user_grade all --submission "$U"; rm -rf "$U"
leftovers
