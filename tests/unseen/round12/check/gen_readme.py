"""Write ../README.md from results.json and the file headers."""
import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
res = json.load(open(os.path.join(HERE, "results.json")))

CAT = {
    "wrong_weight_transposed": "wrong transpose", "wrong_split_by_dmodel": "wrong size (works only when d == d_model)",
    "wrong_interleaved_columns": "wrong reshape order", "wrong_view_noncontiguous": "crash on non-contiguous input",
    "wrong_cast_float32": "dtype slip", "wrong_data_no_grad": "gradient-only (.data)",
    "wrong_einsum_no_batch": "crash on batched input", "wrong_k_v_swapped": "wrong order of outputs",
    "wrong_dot_T_batched": "crash on batched input (.T)", "wrong_keys_times_queries": "wrong transpose (K Qᵀ)",
    "wrong_transpose_dims_0_1": "wrong axis", "wrong_scaled_too_early": "ignores a docstring rule (unscaled)",
    "wrong_bmm_3d_only": "crash on 2-D/4-D input", "wrong_elementwise_pairs": "broadcasting/shape slip",
    "wrong_zeros_default_dtype": "dtype/device slip (buffer without dtype=/device=)",
    "wrong_inplace_transpose": "in-place op mutates input",
    "wrong_divide_by_dk": "wrong scale", "wrong_multiply_sqrt": "wrong scale (inverted)",
    "wrong_inplace_divide": "in-place op mutates input", "wrong_dk_from_key_count": "wrong axis (only when L_k != d_k)",
    "wrong_sqrt_tensor_promotes": "dtype promotion / device slip", "wrong_power_precedence": "operator precedence",
    "wrong_integer_sqrt": "integer arithmetic (only non-square d_k)", "wrong_torch_tensor_copy": "gradient-only (torch.tensor copy)",
    "wrong_triu_future": "wrong triangle (future)", "wrong_padding_key_axis": "broadcasting axis",
    "wrong_mask_ignores_device": "device slip (GPU-only; shown with meta)", "wrong_float_mask": "dtype slip (float mask)",
    "wrong_masked_fill_inplace": "in-place op mutates input", "wrong_mask_not_negated": "logic inverted",
    "wrong_minus_1e9": "sentinel value (-1e9; fp16 overflow)", "wrong_padding_off_by_one": "off-by-one",
    "wrong_no_max_shift": "numerical overflow", "wrong_nan_fully_masked": "NaN through fully masked rows",
    "wrong_ignores_dim": "ignores an argument (wrong axis)", "wrong_nan_to_num_gradient": "gradient-only NaN",
    "wrong_scale_by_dv": "wrong dim for the scale (only when d_v != d_k)", "wrong_softmax_over_queries": "wrong axis",
    "wrong_mask_after_softmax": "wrong order of operations", "wrong_causal_by_default": "ignores a docstring rule (mask=None)",
    "wrong_split_without_transpose": "wrong reshape", "wrong_split_interleaved": "wrong reshape order",
    "wrong_merge_view_noncontiguous": "crash on non-contiguous input", "wrong_merge_without_transpose": "wrong reshape",
    "wrong_no_causal_default": "missing causal mask", "wrong_mask_combined_with_causal": "ignores a docstring rule (mask replaces causal)",
    "wrong_separate_projections": "module structure / state dict", "wrong_causal_buffer_in_state": "module state (persistent buffer)",
    "wrong_repeat_tiles": "wrong repeat order", "wrong_repeat_token_axis": "wrong axis",
    "wrong_group_size_inverted": "integer division inverted (crash unless H_kv == H)",
    "wrong_causal_on_cpu": "device slip (GPU-only; shown with meta)", "wrong_full_size_kv_proj": "module structure (K/V too big)",
    "wrong_heads_view_no_transpose": "wrong reshape", "wrong_linear_bias_default": "ignores a docstring rule (bias=False)",
    "wrong_inline_softmax_nan": "NaN through fully masked rows",
    "wrong_bytes_no_factor_two": "formula (factor 2)", "wrong_update_detaches": "gradient-only (detach)",
    "wrong_cache_ignores_dtype": "dtype slip", "wrong_update_returns_copies": "copies instead of views",
    "wrong_length_bumped_before_check": "state bug (not exception-safe)", "wrong_len_counts_nonzero": "state bug (length from data)",
    "wrong_mask_ignores_past": "off-by-offset (past)", "wrong_past_read_after_update": "state/order bug (only chunks > 1)",
    "wrong_cat_batch_axis": "wrong axis", "wrong_generator_ignored": "RNG not threaded through",
    "wrong_prev_superdiagonal": "wrong sign of offset", "wrong_prev_wraps_query_zero": "negative-index wrap / off-by-one",
    "wrong_induction_keeps_first_half_query": "off-by-one", "wrong_induction_token_match": "off-by-one offset",
    "wrong_induction_no_length_check": "missing validation (ValueError)", "wrong_threshold_inclusive": "boundary (>= vs >)",
    "wrong_core_cost_half": "formula (FLOP count)", "wrong_crossover_float": "return type (float, not int)",
    "wrong_online_sum_not_rescaled": "algorithm (missing rescale)", "wrong_full_causal_mask": "memory O(L²) (values right)",
    "wrong_causal_ignores_offset": "offset convention (only L_q != L_k)", "wrong_output_not_rescaled": "algorithm (missing rescale)",
    "wrong_inplace_mask_probs": "in-place op breaks autograd (gradient-only)", "wrong_nan_grad_no_key_query": "gradient-only NaN",
}


def esc(s):
    return s.replace("|", "\\|")


rows = []
kinds = collections.Counter()
for n in range(1, 11):
    files = sorted(k for k in res if k.startswith(f"exercise{n}/"))
    for rel in files:
        r = res[rel]
        name = os.path.basename(rel)[:-3]
        if r["kind"] == "wrong":
            kinds[CAT[name]] += 1
            first = r["failed"][0]
            result = f"FAILS {len(r['failed'])}/{r['ntests']} checks, e.g. *{esc(first[0])}*: {esc(first[1][:110])}"
        else:
            result = f"passes {r['ntests']}/{r['ntests']}" if not r["failed"] else f"UNEXPECTED: fails {r['failed']}"
        ran = "yes" if r["imported"] and all(r["smoke"].values()) else "NO"
        what = esc(r["what"])
        if r["kind"] == "wrong":
            what = f"**{esc(CAT[name])}** — {what}"
        rows.append(f"| {n} | `{os.path.basename(rel)}` | {r['kind']} | {what} | {result} | {ran} |")

n_w = sum(1 for r in res.values() if r["kind"] == "wrong")
n_h = sum(1 for r in res.values() if r["kind"] == "honest")
ok_w = sum(1 for r in res.values() if r["kind"] == "wrong" and r["failed"])
ok_h = sum(1 for r in res.values() if r["kind"] == "honest" and not r["failed"])

text = f"""# Unseen corpus 12 — Lumen attention kit

100 student submissions for the ten exercises of the attention chapter: for each exercise N,
`exerciseN/` holds 8 `wrong_*.py` (exactly one realistic mistake each) and 2 `honest_*.py` (fully
correct, unusual style). Each file is the exercise stub verbatim with every
`raise NotImplementedError(...)` replaced by code (helpers only right after the stub's imports), and
opens with the `# lumen-unseen:` header (`mistake`/`method`, `ideal`, `expect`, `reject`).

Written only from the chapter text, the exercise stubs and the students' README; no grader code and no
earlier corpus was read.

## How it was checked (`check/`)

- `check/ref.py` — my own reference implementation, written from the chapter and the stubs' docstrings.
- `check/check.py` + `check/common.py` — the checker: per exercise 11–31 checks of values (float64, and
  float32/float16/bfloat16 with dtype preserved), batched/unbatched and non-contiguous inputs, inputs left
  unchanged (values, shape and strides), gradients against the reference (finite and zero where the
  docstrings say so), device-following on PyTorch's `meta` device (stands in for a GPU: a tensor made
  without `device=` lands on the CPU and mixing it with meta tensors raises, just as CPU/CUDA would),
  docstring rules (state-dict keys and shapes, ValueErrors, int return types, views not copies, strict
  thresholds, same seed → same tokens), torch softmax/fused attention banned in exercises 5 and 10, and in
  exercise 10 a dispatch-mode probe that no op makes a tensor as large as (L_q, L_k).
- `check/run.py` — runs the checker on every file (`results.json`); a file also gets a smoke run
  ("ran" column): each of its functions/classes must run without error on at least one input.
- `check/controls.py` — builds, for each exercise, a control from the very same correct code blocks that
  the wrong files share (`spec/exN.py`, `*_OK`) and confirms it passes every check, so each wrong file's
  failures come from its one mistake.
- `check/verify_format.py` — headers (format, regexes compile, the `ideal` line matches `expect` and no
  `reject`), stub fidelity (only `raise NotImplementedError` lines differ from the stub), counts.
- `check/stress.py` — extra larger/half-precision/huge-score runs of the honest files.
- `check/build.py` + `check/spec/exN.py` — the source the 100 files were generated from.

Run: `cd check && python build.py && python verify_format.py && python controls.py && python run.py && python stress.py`
(with the torch 2.13 CPU venv). No GPU was available to this task; the two GPU-only device slips
(exercise4 `wrong_mask_ignores_device`, exercise7 `wrong_causal_on_cpu`) are shown with the meta device.

Result: {ok_w}/{n_w} wrong files fail at least one check, {ok_h}/{n_h} honest files pass every check, all
100 import and run; controls pass; format verification reports no problem.

## Kinds of mistakes (80 wrong files)

| kind | files |
|---|---|
""" + "\n".join(f"| {esc(k)} | {v} |" for k, v in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))) + """

## Files

| exercise | file | kind | mistake / method | checker result | ran |
|---|---|---|---|---|---|
""" + "\n".join(rows) + "\n"
open(os.path.join(ROOT, "README.md"), "w").write(text)
print("README written", n_w, n_h, ok_w, ok_h)
