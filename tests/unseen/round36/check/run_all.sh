#!/bin/sh
# Runs every check; output goes to output.txt next to this script.
cd "$(dirname "$0")"
PY=/opt/venv20/bin/python
{
  echo "torch $($PY -c 'import torch; print(torch.__version__)')  ($(date -u +%Y-%m-%dT%H:%MZ))"
  for e in 1 5 6 7 8 9 10; do
    echo "== exercise $e"
    $PY check_ex$e.py 2>&1
  done
} > output.txt
grep -E "^exercise[0-9]+:" output.txt
