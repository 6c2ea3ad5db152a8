#!/bin/bash
# make_class.sh DIR attack|control: alice hands in exercises 5, 6 and 10 (solutions), graded with their tiers;
# bob hands in exercise3: the hog (attack) or the plain solution (control)
C=$1; rm -rf "$C"; mkdir -p "$C/alice" "$C/bob"
cp /work/scratch20/solutions/exercise{5_softmax,6_multihead,10_tiled_attention}.py "$C/alice/"
if [ "$2" = attack ]; then cp "$(dirname "$0")/hog_exercise3_scaling.py" "$C/bob/exercise3_scaling.py"
else cp /work/scratch20/solutions/exercise3_scaling.py "$C/bob/"; fi
