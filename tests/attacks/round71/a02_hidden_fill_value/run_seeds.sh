#!/bin/bash
# the visible number changes with the seed (the hidden inputs do), and the HTML report carries it too (root)
cd "$(dirname "$0")"; H=$PWD; cd /tmp
for s in 1 2; do echo "seed $s: $(/opt/venv20/bin/lumen-grade exercise4 --submission $H/sub --no-perf --seed $s --course $H/course.toml --hints all 2>/dev/null | grep -o 'masked scores are -[0-9]*' | head -1)"; done
echo "html (seed 0): $(/opt/venv20/bin/lumen-grade exercise4 --submission $H/sub --no-perf --course $H/course.toml --hints all --format html 2>/dev/null | grep -o 'masked scores are -[0-9]*' | sort -u | tr '\n' ' ')"
rm -rf $H/sub/.lumen
