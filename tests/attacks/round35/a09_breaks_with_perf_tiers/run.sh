#!/bin/bash
# reproduce: the breaks a01, a03, a04, a05 graded WITH their performance tiers (no --no-perf), as root and as uid 65534
cd "$(dirname "$0")"; source /work/round35/lib.sh
for pair in a01_indexput_accumulate:exercise1 a04_ex1_elementwise_tree_sum:exercise1 a03_ex10_query_chunks_tree_reductions:exercise10 a05_ex8_hidden_pingpong_copy:exercise8; do
  d=${pair%%:*}; ex=${pair##*:}
  echo "=== $d root"; timeout 300 bash -c "source /work/round35/lib.sh; root_grade $ex --submission /work/round35/$d/sub" 2>&1 | grep -E "exercise[0-9]+ |tier|slower|probe|Total|✗|exit"
  echo "=== $d uid 65534"; U=$(user_copy "../$d/sub" sub-a09-$d); user_grade $ex --submission "$U" 2>&1 | grep -E "exercise[0-9]+ |tier|slower|probe|Total|✗|exit"; rm -rf "$U"
done
leftovers
