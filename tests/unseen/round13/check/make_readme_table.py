"""Prints the README's table of files from the specs (category per wrong file below)."""
import sys
sys.path.insert(0, ".")
from build import load_spec

CAT = {
 "fused_interleaved_columns": "reshape/layout order", "linear_weight_layout": "transposition (porting nn.Linear)",
 "fused_width_from_rows": "wrong axis/size", "view_flatten_noncontiguous": "memory layout (view on non-contiguous)",
 "einsum_one_batch_dim": "batch dims (porting einsum)", "float32_upcast": "dtype slip", "data_attribute_no_grad": "gradient-only",
 "cpu_accumulator": "device slip",
 "dot_T_attribute": "transposition (.T on batched)", "keys_times_queries": "operand order", "einsum_fixed_batch": "batch dims (porting einsum)",
 "inplace_transpose": "in-place edit of input", "float32_matmul": "dtype slip", "broadcast_axes_swapped": "broadcasting",
 "custom_backward_no_transpose": "gradient-only (custom backward)", "already_scaled": "docstring rule (raw scores)",
 "inplace_divide": "in-place edit of input", "dk_from_key_count": "wrong axis", "power_precedence": "operator precedence",
 "one_element_scale_tensor": "dtype/device slip (type promotion)", "ignores_dk_argument": "ignored argument", "integer_sqrt": "boundary (non-square d_k)",
 "quarter_power_both": "porting (split scale)", "no_grad_constant": "gradient-only",
 "strict_lower_triangle": "off-by-one (diagonal)", "causal_ignores_device": "ignored argument / device", "masked_fill_inplace": "in-place edit of input",
 "padding_query_axis_last": "wrong axis (broadcast)", "large_negative_not_inf": "porting (-1e9 fill)", "additive_log_mask": "dtype slip (promotion)",
 "causal_mask_not_bool": "dtype (bool mask)", "padding_width_from_lengths": "ignored argument (L)",
 "global_max_shift": "numerical stability (global max)", "dim_ignored": "ignored argument (dim)", "nan_to_num_backward": "gradient-only (NaN backward)",
 "max_without_keepdim": "broadcasting (keepdim)", "scale_by_value_width": "wrong axis (d_v for d_k)", "causal_by_default": "docstring rule (mask=None)",
 "inplace_exp": "in-place edit of input", "logsumexp_masked_row": "fully masked row (porting logsumexp)",
 "split_einops_d_h_order": "reshape order (porting einops)", "merge_view_noncontiguous": "memory layout (view after transpose)",
 "nanogpt_mask_buffer": "class state (porting nanoGPT buffer)", "mask_combined_with_causal": "docstring rule (mask replaces)",
 "bias_argument_ignored": "ignored argument (bias) / class state", "megatron_qkv_layout": "layout (porting Megatron)",
 "causal_mask_on_cpu": "device slip", "chapter_attention_nan": "fully masked row (NaN forward+backward)",
 "expand_new_axis_first": "repeat order (porting HF expand)", "float32_softmax_upcast": "dtype/precision (porting HF)",
 "kv_proj_full_width": "class state (__init__ shapes)", "no_causal_default": "docstring rule (mask=None is causal)",
 "view_heads_without_transpose": "reshape/transposition order", "repeat_by_kv_heads": "wrong group factor (passes when H = H_kv²)",
 "additive_mask_nan_to_num": "gradient-only (porting additive mask)", "llama_layout_repeat_axis": "wrong axis (porting Meta Llama)",
 "bytes_ignores_batch": "ignored argument", "overflow_after_advance": "class state (update order)", "full_cache_rejected": "boundary (length == max_len)",
 "concatenate_copies": "docstring rule (views, no concat)", "reset_reallocates": "class state (reset)", "storage_ignores_dtype": "dtype slip (ignored argument)",
 "past_read_after_update": "class state / off-by-past (mask offset)", "detached_cache_write": "gradient-only (detach)",
 "generator_ignored": "ignored argument (generator)", "vocab_upper_excluded": "off-by-one (exclusive high)", "previous_counts_query0": "off-by-one (wrap-around index)",
 "induction_same_token": "off-by-one (diagonal offset)", "threshold_inclusive": "boundary (> vs >=)", "tensor_head_indices": "docstring rule (int tuples)",
 "scores_rebuilt_float32": "dtype/device slip (torch.tensor(list))", "length_one_not_rejected": "boundary (L < 2 ValueError)",
 "crossover_float": "docstring rule (int)", "rescale_sign_flipped": "numerical (rescale sign)", "online_masked_row_nan": "fully masked row (NaN)",
 "drops_last_partial_block": "boundary (last partial block)", "causal_ignores_offset": "docstring rule (queries are last positions)",
 "full_score_matrix": "ignored block_size / quadratic memory", "nan_repaired_forward_only": "gradient-only (NaN backward)",
 "accumulators_default_dtype": "dtype/device slip",
}
for n in range(1, 11):
    sp = load_spec(n)
    for v in sp.VARIANTS:
        f = f"exercise{n}/{v['kind']}_{v['name']}.py"
        cat = CAT.get(v["name"], "honest") if v["kind"] == "wrong" else "honest"
        fails = ", ".join(v["fails"]) if v["kind"] == "wrong" else "(passes all)"
        print(f"| {n} | `{f}` | {cat} | {fails} |")
