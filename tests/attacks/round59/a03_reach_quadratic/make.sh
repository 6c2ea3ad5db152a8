#!/bin/bash
# The generated files this attempt graded (0.2 to 1 MB each, not committed): sub/ and control/ of 6000
# statements (gen.py 6000), and gs/trick15000.py, gs/trick30000.py for gs_run.sh.
cd "$(dirname "$0")"; mkdir -p sub control gs
for n in 15000 30000; do python3 gen.py $n && cp sub/exercise3_scaling.py gs/trick$n.py; done
python3 gen.py 6000
