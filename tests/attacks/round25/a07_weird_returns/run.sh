#!/bin/bash
# Odd return values, a different one at each call (sparse, meta, subclass, complex, 62-dim, huge-shape empty, ndarray, object raising in __eq__/__repr__/__getattr__->SystemExit, 100k-tuple, dict with object key, overflowing expand, nan, inf, 50 MB str, 1M list, nested, float8, quantized): each costs only that test, one line, no traceback.
cd "$(dirname "$0")"; source /work/round25/lib.sh
echo "=== root"; root_grade exercise3 --submission $PWD/sub --no-color --no-perf -v 2>&1 | tail -${TAIL:-25}
d=$(user_copy sub a07_weird_returns); echo "=== user (uid 65534)"; user_grade exercise3 --submission $d --no-color --no-perf -v 2>&1 | tail -${TAIL:-25}
leftovers
