#!/bin/bash
# a01: exercise4 apply_mask keeps hidden check A's first score, and fills hidden check B's masked scores with it:
# the structural finding "mask:fill-value" prints it, with show_hidden_tests = false, --hints all
cd "$(dirname "$0")"; source /work/round69/lib.sh
echo "hidden check A (test_apply_mask_fully_masked_rows) input scores[0,0,0], seed 0:"
/opt/venv20/bin/python -c "
import zlib,torch
from grader.grading.testkit import randn
g=torch.Generator(); g.manual_seed(zlib.crc32(b'0:test_exercise4.py::test_apply_mask_fully_masked_rows'))
print(float(randn(g,2,3,4)[0,0,0]))"
cp course.toml /tmp/u65534/r69-a01-course.toml; chown 65534 /tmp/u65534/r69-a01-course.toml
for s in sub control; do
  echo "########## $s"
  echo "=== root"; root_grade exercise4 --submission "$PWD/$s" --no-perf --course "$PWD/course.toml" --hints all
  echo "=== uid 65534"; U=$(user_copy "$PWD/$s" r69-a01-$s); user_grade exercise4 --submission "$U" --no-perf --course /tmp/u65534/r69-a01-course.toml --hints all
  rm -rf "$U"
done
rm -f /tmp/u65534/r69-a01-course.toml
leftovers
