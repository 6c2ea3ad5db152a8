#!/bin/bash
# a13: torch's nn.MultiheadAttention maths copied from torch's own source file (exercise 7 forbids it)
source /work/round23/lib.sh
HERE=$(cd "$(dirname "$0")" && pwd)
S=$(mktemp -d /tmp/a13.XXXX); cp "$HERE/exercise7_gqa.py" "$S/"
echo "== ROOT attack";  root_grade exercise7 --submission "$S" --no-perf
echo "== ROOT control (calls F.multi_head_attention_forward itself)"; root_grade exercise7 --submission "$HERE/control" --no-perf | head -12
U=$(user_copy "$S" a13); UC=$(user_copy "$HERE/control" a13c)
echo "== USER attack";  user_grade exercise7 --submission "$U" --no-perf
echo "== USER control"; user_grade exercise7 --submission "$UC" --no-perf | head -12
rm -rf "$S" "$U" "$UC"; leftovers
