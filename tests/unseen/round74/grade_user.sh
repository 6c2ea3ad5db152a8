#!/bin/bash
cd /work/round74; source /work/round74/lib.sh
for d in m01_proj_linear_T m08_scale_precedence m17_softmax_unstable m20_softmax_nan_to_num m24_sdpa_default_causal m25_two_unstable_and_dim m31_mha_mask_combined m33_repeat_tiled m38_gqa_float32 m43_cache_check_late m46_cached_past_after_update m55_online_no_inf_guard m58_tiled_full_scores; do
  ex=$(cat $d/exercise)
  U=$(user_copy "$PWD/$d/sub" r74-$d)
  { echo "### $d ($ex) uid 65534, text"; user_grade $ex --submission "$U" --no-perf --hints all; } > $d/result-user.txt 2>&1
  user_grade $ex --submission "$U" --no-perf --hints all --format json > $d/result-user.json 2>$d/result-user.json.err
  rm -rf "$U"
done
leftovers
