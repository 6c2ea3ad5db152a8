#!/bin/bash
# quick root-only grade of NAME/sub with -v
d=/work/round61/$1; ex=$(ls $d/sub | head -1 | cut -d_ -f1)
cd /tmp && /opt/venv20/bin/lumen-grade $ex --submission $d/sub --no-perf -v "${@:2}"
