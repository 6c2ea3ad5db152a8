#!/usr/bin/env python3
"""Build the round-85 corpus of student files from the instructor solutions.

Each case = (dir name, exercise number, [(old, new), ...] edits applied to the solution file,
mistake description, what a good diagnosis must name). Every `old` must occur exactly once.
The BEGIN/END SOLUTION markers and HINT comments are stripped so files look like student work.
Run:  python3 gen/make.py   (from /work/round85; writes mNN_*/, dNN_*/, cNN_*/ and predictions.md)
"""
import os
import re
import sys

SOL = "/work/scratch23/solutions"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = {
    1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
    4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
    7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
    10: "exercise10_tiled_attention.py",
}

CASES = []


def case(name, ex, edits, mistake, predict):
    CASES.append((name, ex, edits, mistake, predict))


# ---------------------------------------------------------------- exercise 1
case("m01_e1_weight_transposed", 1,
     [("q = x @ w_q  #", "q = x @ w_q.T  #"), ("k = x @ w_k  #", "k = x @ w_k.T  #"),
      ("v = x @ w_v  #", "v = x @ w_v.T  #")],
     "project uses W.T (nn.Linear's (out,in) convention) instead of W (d_model, d_k)",
     "weights transposed: X @ W, not X @ W^T (shape error when d_k != d_model, wrong values when square)")
case("m02_e1_fused_interleaved", 1,
     [("q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)",
       "q, k, v = qkv[..., 0::3], qkv[..., 1::3], qkv[..., 2::3]  # every third column")],
     "fused_project takes interleaved columns (0,3,6.. / 1,4,7..) instead of three contiguous blocks",
     "fused weight layout: [W_Q | W_K | W_V] are contiguous blocks of d columns, not interleaved")
case("m03_e1_split_count", 1,
     [("q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)",
       "q, k, v = qkv.split(3, dim=-1)  # three parts")],
     "split(3) means pieces of size 3 (chunk semantics confused): unpack error unless d == 3",
     "Tensor.split takes the piece SIZE (d), not the number of parts (chunk(3) / split(d))")
case("m04_e1_split_dim1", 1,
     [("q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)",
       "q, k, v = qkv.split(d, dim=1)  # three (L, d)")],
     "fused split on dim=1: right for 2-D x, wrong as soon as x has batch dims",
     "split along a positive dim: only correct without leading batch dims; use dim=-1")
case("m05_e1_float32_cast", 1,
     [("q = x @ w_q  #", "q = x.float() @ w_q.float()  #"),
      ("k = x @ w_k  #", "k = x.float() @ w_k.float()  #"),
      ("v = x @ w_v  #", "v = x.float() @ w_v.float()  #")],
     "project casts to float32: float64/float16 inputs come back float32",
     "dtype: output must keep the inputs' dtype (no .float())")
case("m06_e1_column_convention", 1,
     [("q = x @ w_q  #", "q = (w_q.transpose(-2, -1) @ x.transpose(-2, -1))  #"),
      ("k = x @ w_k  #", "k = (w_k.transpose(-2, -1) @ x.transpose(-2, -1))  #"),
      ("v = x @ w_v  #", "v = (w_v.transpose(-2, -1) @ x.transpose(-2, -1))  #")],
     "column-vector convention W^T X^T: returns (d_k, L) instead of (L, d_k)",
     "output transposed: one ROW per token (L, d_k), i.e. X W, not (X W)^T")

# ---------------------------------------------------------------- exercise 2
case("m07_e2_dot_T", 2,
     [("return q @ k.transpose(-2, -1)", "return q @ k.T")],
     "k.T reverses ALL dims: right for 2-D, wrong/error with batch dims",
     ".T reverses every dim; with batch/head dims transpose only the last two (transpose(-2,-1))")
case("m08_e2_k_q_swapped", 2,
     [("return q @ k.transpose(-2, -1)", "return k @ q.transpose(-2, -1)")],
     "computes K Q^T: scores transposed (L_k, L_q), rows are keys",
     "scores transposed: row i must be query i (Q K^T, not K Q^T); shape wrong when L_q != L_k")
case("m09_e2_transpose01", 2,
     [("return q @ k.transpose(-2, -1)", "return q @ k.transpose(0, 1)")],
     "transpose(0, 1): correct only for 2-D q, k",
     "transposes batch dims when there are leading dims; use negative dims (-2, -1)")
case("m10_e2_inplace_transpose", 2,
     [("return q @ k.transpose(-2, -1)", "return q @ k.transpose_(-2, -1)")],
     "transpose_ changes the caller's k in place",
     "input modified in place (transpose_): k must be left unchanged")
case("m11_e2_divided_scores", 2,
     [("return q @ k.transpose(-2, -1)", "return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5")],
     "already scales by sqrt(d_k) in exercise 2 (the raw scores were asked for)",
     "scores scaled by 1/sqrt(d_k): exercise 2 wants RAW scores (scaling is exercise 3)")

# ---------------------------------------------------------------- exercise 3
case("m12_e3_divide_by_dk", 3,
     [("return scores / math.sqrt(d_k)", "return scores / d_k")],
     "divides by d_k instead of sqrt(d_k)",
     "scaled by d_k, not sqrt(d_k) (variance argument: std is sqrt(d_k))")
case("m13_e3_multiply", 3,
     [("return scores / math.sqrt(d_k)", "return scores * math.sqrt(d_k)")],
     "multiplies by sqrt(d_k)",
     "multiplies instead of dividing")
case("m14_e3_dk_is_Lk", 3,
     [("d_k = q.size(-1)\n", "d_k = k.size(-2)\n")],
     "scaled_scores uses the number of keys (k.size(-2)) as d_k",
     "d_k is the WIDTH q.size(-1), not the number of keys / sequence length")
case("m15_e3_inplace_divide", 3,
     [("return scores / math.sqrt(d_k)  # (..., L_q, L_k)",
       "scores /= math.sqrt(d_k)\n    return scores  # (..., L_q, L_k)")],
     "scale_scores divides the caller's tensor in place",
     "input modified in place (/=): return a new tensor")
case("m16_e3_double_scale", 3,
     [("return scale_scores(scores, d_k)  # (..., L_q, L_k)",
       "return scale_scores(scores, d_k) / math.sqrt(d_k)  # (..., L_q, L_k)")],
     "scaled_scores scales twice (effectively by d_k)",
     "scaled twice: scaled_scores divides by d_k overall (scale_scores alone is right)")
case("m17_e3_sqrt_in_float32", 3,
     [("return scores / math.sqrt(d_k)", "return scores / torch.sqrt(torch.tensor(d_k, dtype=torch.float32))")],
     "computes sqrt(d_k) in float32: float64 results lose precision (~1e-8 rel)",
     "(subtle) float64 precision: sqrt done in float32; acceptable if graded as pass within tolerance")

# ---------------------------------------------------------------- exercise 4
case("m18_e4_triu", 4,
     [("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
       "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))")],
     "causal mask uses triu: queries see the future, not the past",
     "mask is upper-triangular (future allowed): use tril")
case("m19_e4_strict_tril", 4,
     [("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
       "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)")],
     "diagonal excluded: token i cannot see itself, row 0 all False",
     "off by one: the diagonal (a token reading itself) must be allowed")
case("m20_e4_fill_where_true", 4,
     [('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill(mask, float("-inf"))')],
     "apply_mask fills -inf where mask is True (allowed), not where False",
     "mask semantics inverted: True = may attend; fill where mask is False (~mask)")
case("m21_e4_masked_fill_", 4,
     [('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill_(~mask, float("-inf"))')],
     "masked_fill_ modifies scores in place",
     "input modified in place: masked_fill, not masked_fill_")
case("m22_e4_padding_le", 4,
     [("real = positions < lengths[:, None]", "real = positions <= lengths[:, None]")],
     "padding mask keeps key j == lengths[b] (one padding key visible)",
     "off by one: key j is real iff j < lengths[b] (positions count from 0)")
case("m23_e4_padding_query_axis", 4,
     [("return real[:, None, :]  # (B, 1, L)", "return real[:, :, None]  # (B, L, 1)")],
     "padding mask shaped (B, L, 1): masks queries, broadcasts over keys",
     "wrong axis: the 1 is the QUERY axis, (B, 1, L); (B, L, 1) hides padding queries, not keys")
case("m24_e4_neg_large", 4,
     [('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill(~mask, -1e9)')],
     "fills -1e9 instead of -inf (error in float16, not -inf in float32)",
     "-inf required (finite -1e9 overflows fp16 / gives nonzero weight on fully masked rows)")
case("m25_e4_arange_cpu", 4,
     [("positions = torch.arange(L, device=lengths.device)", "positions = torch.arange(L)")],
     "padding_mask builds arange on the CPU: device mismatch on CUDA only",
     "device slip (arange on CPU); only visible with CUDA: on CPU-only grading full marks is expected")

# ---------------------------------------------------------------- exercise 5
case("m26_e5_no_max_shift", 5,
     [("e = torch.exp(x - x_max)", "e = torch.exp(x)")],
     "no max subtraction: exp(1e4) = inf -> NaN",
     "not stable: subtract the max along dim before exp (overflow on large scores)")
case("m27_e5_global_max", 5,
     [("x_max = x.amax(dim=dim, keepdim=True)  #", "x_max = x.amax()  #")],
     "shift by the global max, not the per-slice max: slices far below it underflow to 0/0",
     "max over the whole tensor instead of along dim (per slice); rows much smaller than the global max underflow")
case("m28_e5_sum_last_dim", 5,
     [("total = e.sum(dim=dim, keepdim=True)", "total = e.sum(dim=-1, keepdim=True)")],
     "sum always over the last dim, ignoring the dim argument",
     "normalises over dim -1 regardless of `dim` (only dim=-1 correct)")
case("m29_e5_no_keepdim", 5,
     [("total = e.sum(dim=dim, keepdim=True)", "total = e.sum(dim=dim)")],
     "sum without keepdim: divides along the wrong axis (broadcast), error on non-square",
     "keepdim missing: the sum broadcasts against the wrong axis")
case("m30_e5_masked_row_nan", 5,
     [('    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0\n', "")],
     "no guard for all -inf slices: -inf - (-inf) = NaN",
     "fully masked row gives NaN (-inf minus -inf); guard the max of an all -inf slice")
case("m31_e5_nan_to_num", 5,
     [('    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0\n', ""),
      ("return e / total.masked_fill(total == 0, 1.0)", "return torch.nan_to_num(e / total, nan=0.0)")],
     "NaN patched after the fact with nan_to_num: forward right, gradients NaN on masked rows",
     "gradient NaN for fully masked rows (nan_to_num fixes the value, not the backward)")
case("m32_e5_softmax_over_queries", 5,
     [("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)")],
     "attention softmax over queries (dim=-2) instead of keys",
     "softmax over the wrong dim: over keys (dim=-1); columns sum to 1 instead of rows")
case("m33_e5_scale_by_dv", 5,
     [("    d_k = q.size(-1)\n    scores", "    d_k = v.size(-1)\n    scores")],
     "scale by sqrt(d_v) instead of sqrt(d_k): right only when d_v == d_k",
     "scaled by the width of V, not of Q/K (only visible when d_v != d_k)")
case("m34_e5_mask_after_softmax", 5,
     [('    if mask is not None:\n        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)\n', ""),
      ("weights = softmax(scores, dim=-1)  # step 4: (..., L_q, L_k) rows sum to 1 (0 if fully masked)",
       "weights = softmax(scores, dim=-1)  # step 4\n    if mask is not None:\n        weights = weights.masked_fill(~mask, 0.0)  # zero the hidden keys")],
     "mask applied after softmax by zeroing: rows no longer sum to 1",
     "mask must be applied BEFORE softmax (-inf), else the weights are not renormalised")
case("m35_e5_mask_inverted", 5,
     [('scores = scores.masked_fill(~mask, float("-inf"))', 'scores = scores.masked_fill(mask, float("-inf"))')],
     "sdpa fills -inf where mask is True",
     "mask semantics inverted: True = may attend")
case("m36_e5_weights_T_at_v", 5,
     [("return weights @ v, weights", "return weights.transpose(-2, -1) @ v, weights")],
     "output uses A^T V: mixes by columns (shape error when L_q != L_k)",
     "output = A V with A (L_q, L_k); transposing A mixes the wrong weights")
case("m37_e5_default_causal", 5,
     [("    if mask is not None:\n        scores = scores.masked_fill(~mask, float(\"-inf\"))  # -inf where NOT allowed: (..., L_q, L_k)\n",
       "    if mask is None:\n        mask = torch.tril(torch.ones(q.size(-2), k.size(-2), dtype=torch.bool, device=q.device))\n    scores = scores.masked_fill(~mask, float(\"-inf\"))  # -inf where NOT allowed: (..., L_q, L_k)\n")],
     "adds a causal mask when mask is None (the docstring: no causal mask is added)",
     "mask=None means every query reads every key; a causal mask was added by default")
case("m38_e5_inplace_sub", 5,
     [("e = torch.exp(x - x_max)", "e = torch.exp(x.sub_(x_max))")],
     "x.sub_ shifts the caller's tensor in place",
     "input modified in place (sub_); also may break autograd")

# ---------------------------------------------------------------- exercise 6
case("m39_e6_split_view_heads_first", 6,
     [("    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)",
       "    return x.view(B, n_heads, L, D // n_heads)")],
     "split_heads views straight to (B, H, L, d_head): scrambles tokens and heads",
     "view to (B, L, H, d_head) THEN transpose(1,2); a direct view to (B,H,L,dh) mixes tokens across heads")
case("m40_e6_merge_no_transpose", 6,
     [("    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works\n    return x.view(B, L, H * d_head)",
       "    return x.reshape(B, L, H * d_head)")],
     "merge_heads reshapes without transposing back",
     "merge must transpose(1,2) back to (B, L, H, d_head) before flattening")
case("m41_e6_split_strided_heads", 6,
     [("    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)",
       "    x = x.view(B, L, D // n_heads, n_heads)  # (B, L, d_head, H)\n    return x.permute(0, 3, 1, 2)  # (B, H, L, d_head)")],
     "view(B, L, d_head, H): head h gets columns h, h+H, ... (strided) not a contiguous chunk",
     "head h must be columns h*d_head..(h+1)*d_head-1 (view(B,L,H,d_head)), not every H-th column")
case("m42_e6_merge_view_noncontig", 6,
     [("x = x.transpose(1, 2).contiguous()  #", "x = x.transpose(1, 2)  #")],
     "merge_heads: .view on a transposed (non-contiguous) tensor raises",
     "view needs contiguous memory: .contiguous() (or reshape) after transpose")
case("m43_e6_no_causal_default", 6,
     [("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n", "")],
     "forward without the default causal mask",
     "mask None must mean CAUSAL attention in MHA forward: token i sees 0..i")
case("m44_e6_combine_masks", 6,
     [("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n",
       "        causal = causal_mask(L, x.device)\n        mask = causal if mask is None else (mask & causal)\n")],
     "a given mask is ANDed with the causal mask instead of replacing it",
     "a given mask replaces the causal one (docstring); combining it hides keys the mask allows")
case("m45_e6_qkv_order", 6,
     [("q, k, v = self.qkv(x).split(D, dim=-1)", "k, q, v = self.qkv(x).split(D, dim=-1)")],
     "takes the fused blocks in K, Q, V order",
     "fused qkv layout: first D columns are Q, then K, then V")
case("m46_e6_no_out_proj", 6,
     [("return self.out(y)  # mix heads with W_O: (B, L, D)", "return y  # (B, L, D)")],
     "forward returns the merged heads without W_O",
     "output projection W_O (self.out) missing")

# ---------------------------------------------------------------- exercise 7
case("m47_e7_repeat_tiles", 7,
     [("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat(1, n_rep, 1, 1)")],
     "repeat tiles heads [0,1,0,1,..] instead of [0,0,1,1,..]",
     "repeat vs repeat_interleave: output head j must be KV head j // n_rep (groups are adjacent)")
case("m48_e7_expand_tiles", 7,
     [("return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)",
       "B, H_kv, L, d = x.shape\n    return x[:, None].expand(B, n_rep, H_kv, L, d).reshape(B, n_rep * H_kv, L, d)")],
     "expand with the repeat axis BEFORE the head axis: same tiling as repeat",
     "group order wrong (tiled [0,1,0,1]); the new axis must come after the KV-head axis")
case("m49_e7_interleave_seq_dim", 7,
     [("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat_interleave(n_rep, dim=2)")],
     "repeats along the sequence dim (dim=2)",
     "repeat along the HEADS dim (1), not the sequence dim")
case("m50_e7_rep_is_nkv", 7,
     [("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads")],
     "number of repeats = n_kv_heads: right only when H = H_kv^2 (e.g. 4, 2)",
     "n_rep must be n_heads // n_kv_heads (group size), not n_kv_heads")
case("m51_e7_float32_compute", 7,
     [("y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)",
       "y, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)  # (B, H, L, dh)\n        y = y.to(x.dtype)")],
     "attention done in float32 and cast back: float64 loses precision",
     "float64 must be computed in float64 (no .float() downcast)")
case("m52_e7_kv_view_heads_first", 7,
     [("k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)",
       "k = self.k_proj(x).view(B, self.n_kv_heads, L, self.d_head)"),
      ("v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)",
       "v = self.v_proj(x).view(B, self.n_kv_heads, L, self.d_head)")],
     "k, v viewed straight as (B, H_kv, L, dh) with no transpose",
     "head split of K/V wrong: view (B, L, H_kv, dh) then transpose(1,2)")
case("m53_e7_merge_no_transpose", 7,
     [("y = y.transpose(1, 2).contiguous().view(B, L, -1)", "y = y.reshape(B, L, -1)")],
     "heads concatenated by reshape without transposing back",
     "concat of heads: transpose(1,2) before view(B, L, -1)")

# ---------------------------------------------------------------- exercise 8
case("m54_e8_bytes_no_two", 8,
     [("return 2 * n_layers *", "return n_layers *")],
     "kv_cache_bytes forgets the factor 2 (keys AND values)",
     "factor 2: keys and values both cached")
case("m55_e8_bytes_no_batch", 8,
     [("* seq_len * batch_size * bytes_per_value", "* seq_len * bytes_per_value")],
     "kv_cache_bytes ignores batch_size",
     "batch_size missing from the product")
case("m56_e8_update_cat", 8,
     [("        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n        self.length = end\n        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)",
       "        self.k = torch.cat([self.k[:, :, :start], k, self.k[:, :, end:]], dim=2)\n        self.v = torch.cat([self.v[:, :, :start], v, self.v[:, :, end:]], dim=2)\n        self.length = end\n        return self.k[:, :, :end], self.v[:, :, :end]")],
     "update rebuilds the storage with torch.cat every call (copies the past, new storage)",
     "not in place: writes into the preallocated storage (slice assignment), no cat / reallocation")
case("m57_e8_capacity_ge", 8,
     [("if end > self.max_len:", "if end >= self.max_len:")],
     "refuses to fill the cache up to exactly max_len",
     "off by one in the capacity check: end == max_len fits")
case("m58_e8_check_after_write", 8,
     [("        if end > self.max_len:\n            raise ValueError(f\"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}\")\n        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n",
       "        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n        if end > self.max_len:\n            raise ValueError(\"KV cache is full\")\n")],
     "writes before checking capacity: overflow raises RuntimeError (shape mismatch), not ValueError",
     "check the length BEFORE writing; overflow must raise ValueError and leave the cache unchanged")
case("m59_e8_mask_no_past", 8,
     [("mask = mask.tril(diagonal=past)", "mask = mask.tril()")],
     "causal mask ignores the past offset: new token i sees keys 0..i only, not the cache",
     "mask offset: new token i sits at position past+i (tril(diagonal=past))")
case("m60_e8_past_after_update", 8,
     [("        past = 0 if cache is None else len(cache)  # tokens already cached\n        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)\n",
       "        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)\n        past = 0 if cache is None else len(cache)  # tokens cached\n")],
     "past read after update (includes the new tokens): mask too wide / wrong shape",
     "past must be read BEFORE update: off by T_new (mask shape or new tokens see later new tokens)")
case("m61_e8_return_storage", 8,
     [("return self.k[:, :, :end], self.v[:, :, :end]", "return self.k, self.v")],
     "update returns the whole max_len storage (unfilled zeros attended to)",
     "return only the filled part [:, :, :len]; the unfilled zeros get attention weight")
case("m62_e8_reset_realloc", 8,
     [("        self.length = 0\n        # END SOLUTION\n\n    def update",
       "        self.length = 0\n        self.k = torch.zeros_like(self.k)\n        self.v = torch.zeros_like(self.v)\n        # END SOLUTION\n\n    def update")],
     "reset allocates new storage",
     "reset must keep the storage (no new allocation); only the length goes to 0")
case("m63_e8_detach_write", 8,
     [("self.k[:, :, start:end] = k  #", "self.k[:, :, start:end] = k.detach()  #"),
      ("self.v[:, :, start:end] = v  #", "self.v[:, :, start:end] = v.detach()  #")],
     "cache stores detached k, v: no gradient to k_proj/v_proj through the cache",
     "gradients: .detach() cuts autograd through the cached keys/values")

# ---------------------------------------------------------------- exercise 9
case("m64_e9_prev_superdiag", 9,
     [("below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)", "below = pattern.diagonal(offset=1, dim1=-2, dim2=-1)")],
     "previous-token score reads the super-diagonal (key i+1, the future)",
     "wrong diagonal: key i-1 is BELOW the diagonal (offset -1); offset +1 reads the next token")
case("m65_e9_prev_counts_query0", 9,
     [("return below.mean(dim=(0, 2))  # (H,)", "return below.sum(dim=(0, 2)) / (pattern.size(0) * pattern.size(-1))  # (H,)")],
     "mean divides by L (counts query 0) instead of L-1",
     "query 0 must not be counted: mean over L-1 queries")
case("m66_e9_prev_mean_wrong_axes", 9,
     [("return below.mean(dim=(0, 2))  # (H,)", "return below.mean(dim=(0, 1))  # (H,)")],
     "averages over batch and heads: returns one value per query (L-1,)",
     "averaged over the wrong axes: one score per HEAD (mean over batch and queries)")
case("m67_e9_induction_keeps_first", 9,
     [("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))")],
     "induction stripe includes query seq_len-1 (first half)",
     "off by one: only second-half queries i >= seq_len; drop the stripe's first entry")
case("m68_e9_induction_same_token", 9,
     [("stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)", "stripe = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)"),
      ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))")],
     "induction reads key i - seq_len (the earlier copy of the same token), not the token after it",
     "induction head attends to the token AFTER the earlier occurrence: key i-seq_len+1")
case("m69_e9_tokens_interleaved", 9,
     [("return torch.cat([first, first], dim=1)", "return first.repeat_interleave(2, dim=1)")],
     "repeated_tokens gives [7,7,2,2,..] (each token doubled) instead of the sequence twice",
     "the whole sequence repeated (cat / repeat), not each token repeated next to itself")
case("m70_e9_threshold_ge", 9,
     [("if score[head] > threshold]", "if score[head] >= threshold]")],
     "find_heads counts a head whose score equals the threshold",
     "boundary: strictly greater than threshold")
case("m71_e9_tensor_indices", 9,
     [("found[kind] += [(layer, head) for head in range(pattern.size(1)) if score[head] > threshold]",
       "found[kind] += [(layer, h) for h in (score > threshold).nonzero().flatten()]")],
     "find_heads returns 0-dim tensors as head indices, not ints",
     "the tuples must hold Python ints (tensor indices from nonzero())")
case("m72_e9_no_validation", 9,
     [("    if pattern.size(-1) < 2:\n        raise ValueError(\"a previous-token score needs L >= 2 (query 0 has no previous token)\")\n", "")],
     "previous_token_score does not reject L < 2 (returns NaN)",
     "missing ValueError for L < 2")

# ---------------------------------------------------------------- exercise 10
case("m73_e10_ff_cost_8", 10,
     [('"feed_forward": 16 * L * d_model * d_model', '"feed_forward": 8 * L * d_model * d_model')],
     "feed-forward FLOPs counted as 8 L d^2 (one product only)",
     "feed-forward = two products of L·d·4d, 2 FLOPs each: 16 L d^2")
case("m74_e10_crossover_float", 10,
     [("return 6 * d_model", "return 24 * d_model ** 2 / (4 * d_model)")],
     "crossover returned as float 4608.0",
     "return an int (true division gives a float)")
case("m75_e10_online_no_rescale", 10,
     [("l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)",
       "l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)")],
     "online softmax never rescales the running sum when the max rises",
     "running sum l must be rescaled by e^(m_old - m_new) when a block raises the max (only wrong with >1 block and rising max)")
case("m76_e10_online_rescale_inverted", 10,
     [("l = l * torch.exp(m - shift) +", "l = l * torch.exp(shift - m) +")],
     "rescale factor inverted e^(m_new - m_old)",
     "rescale factor inverted: multiply by e^(m_old - m_new) <= 1")
case("m77_e10_tiled_o_no_rescale", 10,
     [("o = o * rescale + p @ v_block", "o = o + p @ v_block")],
     "tiled attention rescales l but not the output accumulator o",
     "output accumulator o also needs the e^(m_old - m_new) rescale")
case("m78_e10_tiled_query_positions", 10,
     [("position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]",
       "position = torch.arange(L_q, device=q.device)[:, None]")],
     "causal: queries placed at positions 0..L_q-1 instead of the last L_q",
     "queries are the LAST L_q positions (offset L_k - L_q); only visible when L_q != L_k")
case("m79_e10_tiled_causal_ge", 10,
     [("s = s.masked_fill(key > position, float(\"-inf\"))", "s = s.masked_fill(key >= position, float(\"-inf\"))")],
     "causal mask hides the diagonal: a query cannot see its own key",
     "off by one: a query may see its own position (key > position is hidden, not >=)")
case("m80_e10_tiled_drops_last_block", 10,
     [("for start in range(0, L_k, block_size):", "for start in range(0, L_k - block_size + 1, block_size):")],
     "loop skips the last partial block (and everything when block_size > L_k)",
     "the last, shorter block is dropped: range must go to L_k")
case("m81_e10_tiled_no_shift_guard", 10,
     [("        shift = m_new.masked_fill(m_new == float(\"-inf\"), 0.0)  # (..., L_q, 1) no key seen yet: shift by 0\n", "        shift = m_new\n")],
     "no guard when no key seen yet: -inf - (-inf) = NaN for causal early blocks / fully masked queries",
     "NaN from exp(-inf - -inf) for queries that have seen no key yet; shift by 0 there")
case("m82_e10_tiled_full_matrix", 10,
     [("    L_q, L_k = q.size(-2), k.size(-2)\n    m = torch.full_like",
       "    L_q, L_k = q.size(-2), k.size(-2)\n    s_all = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n    if causal:\n        pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]\n        s_all = s_all.masked_fill(torch.arange(L_k, device=q.device) > pos, float(\"-inf\"))\n    mx = s_all.amax(dim=-1, keepdim=True)\n    mx = mx.masked_fill(mx == float(\"-inf\"), 0.0)\n    p_all = torch.exp(s_all - mx)\n    tot = p_all.sum(dim=-1, keepdim=True)\n    return (p_all @ v) / tot.masked_fill(tot == 0, 1.0)\n    m = torch.full_like")],
     "tiled_attention builds the full (L_q, L_k) score matrix (right values, quadratic memory)",
     "memory: builds the L×L scores; must loop over key blocks")
case("m83_e10_tiled_scale_dv", 10,
     [("s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))", "s = q @ k_block.transpose(-2, -1) / math.sqrt(v.size(-1))")],
     "tiled attention scales by sqrt(d_v)",
     "scale by sqrt(d_k) (q's width), not d_v; only visible when d_v != d_k")

# ---------------------------------------------------------------- two mistakes
case("d01_e3_dk_and_inplace", 3,
     [("return scores / math.sqrt(d_k)  # (..., L_q, L_k)", "scores /= d_k\n    return scores  # (..., L_q, L_k)")],
     "TWO: divides by d_k (not sqrt) AND in place on the input",
     "both: scale by sqrt(d_k) not d_k; input modified in place")
case("d02_e4_triu_and_pad_le", 4,
     [("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
       "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))"),
      ("real = positions < lengths[:, None]", "real = positions <= lengths[:, None]")],
     "TWO: causal mask triu; padding mask <= (off by one)",
     "both: causal mask upper-triangular (future visible); padding off by one (j < lengths)")
case("d03_e5_noshift_and_querydim", 5,
     [("e = torch.exp(x - x_max)", "e = torch.exp(x)"),
      ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)")],
     "TWO: softmax without max shift; attention softmax over queries",
     "both: not stable (no max subtraction); softmax over dim -2 (queries) in attention")
case("d04_e5_maskinv_and_dv", 5,
     [('scores = scores.masked_fill(~mask, float("-inf"))', 'scores = scores.masked_fill(mask, float("-inf"))'),
      ("    d_k = q.size(-1)\n    scores", "    d_k = v.size(-1)\n    scores")],
     "TWO: mask inverted in sdpa; scale by sqrt(d_v)",
     "both: mask semantics inverted; scale by q's width not v's")
case("d05_e6_split_and_merge_views", 6,
     [("    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)",
       "    return x.view(B, n_heads, L, D // n_heads)"),
      ("    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works\n    return x.view(B, L, H * d_head)",
       "    return x.reshape(B, L, H * d_head)")],
     "TWO: split_heads and merge_heads both plain views without transpose",
     "both functions: view/reshape without the transpose (split and merge each wrong)")
case("d06_e7_repeat_and_float32", 7,
     [("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat(1, n_rep, 1, 1)"),
      ("y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)",
       "y, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)  # (B, H, L, dh)\n        y = y.to(x.dtype)")],
     "TWO: repeat instead of repeat_interleave; attention in float32",
     "both: group order (repeat_interleave); float64 computed in float32")
case("d07_e8_no2_and_mask_no_past", 8,
     [("return 2 * n_layers *", "return n_layers *"), ("mask = mask.tril(diagonal=past)", "mask = mask.tril()")],
     "TWO: bytes without factor 2; cached mask ignores past",
     "both: factor 2 (K and V); mask offset by past")
case("d08_e8_cat_and_past_after", 8,
     [("        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n        self.length = end\n        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)",
       "        self.k = torch.cat([self.k[:, :, :start], k, self.k[:, :, end:]], dim=2)\n        self.v = torch.cat([self.v[:, :, :start], v, self.v[:, :, end:]], dim=2)\n        self.length = end\n        return self.k[:, :, :end], self.v[:, :, :end]"),
      ("        past = 0 if cache is None else len(cache)  # tokens already cached\n        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)\n",
       "        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)\n        past = 0 if cache is None else len(cache)  # tokens cached\n")],
     "TWO: update via cat (not in place); past read after update",
     "both: in-place write into storage; past read before update")
case("d09_e9_superdiag_and_first", 9,
     [("below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)", "below = pattern.diagonal(offset=1, dim1=-2, dim2=-1)"),
      ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))")],
     "TWO: previous-token reads super-diagonal; induction includes first-half query",
     "both: previous token is below the diagonal; induction only second-half queries")
case("d10_e10_norescale_and_positions", 10,
     [("l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)",
       "l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"),
      ("position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]",
       "position = torch.arange(L_q, device=q.device)[:, None]")],
     "TWO: online_softmax without rescale; tiled causal queries at the first positions",
     "both: rescale l on a rising max; queries are the last L_q positions")

# ---------------------------------------------------------------- correct, unusual
case("c01_e1_einsum_slices", 1,
     [("    q = x @ w_q  # (..., L, d_k)\n    k = x @ w_k  # (..., L, d_k)\n    v = x @ w_v  # (..., L, d_v)\n",
       "    q = torch.einsum('...ld,dk->...lk', x, w_q)\n    k = torch.einsum('...ld,dk->...lk', x, w_k)\n    v = torch.einsum('...ld,dk->...lk', x, w_v)\n"),
      ("    q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)\n",
       "    q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]\n")],
     "CORRECT: einsum projections; fused split by slicing", "full marks")
case("c02_e2_einsum", 2,
     [("return q @ k.transpose(-2, -1)", "return torch.einsum('...id,...jd->...ij', q, k)")],
     "CORRECT: einsum scores", "full marks")
case("c03_e3_prescale_q", 3,
     [("return scores / math.sqrt(d_k)  # (..., L_q, L_k)", "return scores * d_k ** -0.5  # (..., L_q, L_k)"),
      ("    scores = q @ k.transpose(-2, -1)  # (..., L_q, L_k)\n    return scale_scores(scores, d_k)  # (..., L_q, L_k)",
       "    return (q / math.sqrt(d_k)) @ k.mT  # scale q first: same maths")],
     "CORRECT: multiply by d_k**-0.5; scale q before the product (mT)", "full marks")
case("c04_e4_arange_where", 4,
     [("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
       "i = torch.arange(L, device=device)\n    return i[:, None] >= i[None, :]"),
      ('return scores.masked_fill(~mask, float("-inf"))',
       'return torch.where(mask, scores, torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device))'),
      ("    positions = torch.arange(L, device=lengths.device)  # (L,) 0, 1, ..., L-1\n    real = positions < lengths[:, None]  # (B, L): True where j < lengths[b]\n    return real[:, None, :]  # (B, 1, L)",
       "    positions = torch.arange(L, device=lengths.device)\n    return (positions.unsqueeze(0) < lengths.unsqueeze(1)).unsqueeze(1)")],
     "CORRECT: arange comparison for causal mask; torch.where; unsqueeze padding", "full marks")
case("c05_e5_logsumexp_einsum", 5,
     [("    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score of each slice\n    x_max = x_max.masked_fill(x_max == float(\"-inf\"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0\n    e = torch.exp(x - x_max)  # (x's shape) every entry <= 1: no overflow; e^-inf = 0\n    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...) > 0 unless the slice was all -inf\n    return e / total.masked_fill(total == 0, 1.0)  # (x's shape) an all -inf slice: 0 / 1 = 0",
       "    dead = (x == float(\"-inf\")).all(dim=dim, keepdim=True)  # all -inf slices\n    safe = x.masked_fill(dead, 0.0)\n    lse = torch.logsumexp(safe, dim=dim, keepdim=True)\n    return torch.exp(safe - lse).masked_fill(dead, 0.0)"),
      ("    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)",
       "    scores = torch.einsum('...qd,...kd->...qk', q, k) / math.sqrt(d_k)"),
      ("return weights @ v, weights", "return torch.einsum('...qk,...kd->...qd', weights, v), weights")],
     "CORRECT: softmax via logsumexp with a where-guard; sdpa with einsum", "full marks")
case("c06_e6_unflatten_permute", 6,
     [("    B, L, D = x.shape  # batch, seq len, d_model\n    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)",
       "    return x.unflatten(-1, (n_heads, -1)).permute(0, 2, 1, 3)"),
      ("    B, H, L, d_head = x.shape\n    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works\n    return x.view(B, L, H * d_head)",
       "    return x.permute(0, 2, 1, 3).flatten(2)"),
      ("q, k, v = self.qkv(x).split(D, dim=-1)", "q, k, v = self.qkv(x).chunk(3, dim=-1)")],
     "CORRECT: unflatten/permute split, permute/flatten merge, chunk(3)", "full marks")
case("c07_e7_expand_index", 7,
     [("return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)",
       "B, H_kv, L, d = x.shape\n    return x[:, :, None].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)"),
      ("        k = repeat_kv(k, rep)  # (B, H, L, dh): each KV head serves `rep` query heads\n        v = repeat_kv(v, rep)  # (B, H, L, dh)\n",
       "        idx = torch.arange(self.n_heads, device=x.device) // rep  # query head -> its KV head\n        k = k.index_select(1, idx)\n        v = v.index_select(1, idx)\n")],
     "CORRECT: repeat_kv by expand on a new axis after the heads; forward by index_select", "full marks")
case("c08_e8_prod_copy_arange", 8,
     [("return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value",
       "return math.prod([2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value])"),
      ("        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n        self.length = end\n        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)",
       "        self.k.narrow(2, start, end - start).copy_(k)\n        self.v.narrow(2, start, end - start).copy_(v)\n        self.length = end\n        return self.k.narrow(2, 0, end), self.v.narrow(2, 0, end)"),
      ("        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)  # (T_new, past + T_new)\n        mask = mask.tril(diagonal=past)  # (T_new, past + T_new)",
       "        qpos = past + torch.arange(T_new, device=x.device)\n        mask = torch.arange(past + T_new, device=x.device)[None, :] <= qpos[:, None]")],
     "CORRECT: math.prod; narrow().copy_(); mask by arange comparison", "full marks")
case("c09_e9_indexing_repeat", 9,
     [("return torch.cat([first, first], dim=1)  # (B, 2T)", "return first.repeat(1, 2)"),
      ("    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [..., i-1] = pattern[..., i, i-1]\n    return below.mean(dim=(0, 2))  # (H,)",
       "    L = pattern.size(-1)\n    i = torch.arange(1, L, device=pattern.device)\n    return pattern[:, :, i, i - 1].mean(dim=(0, 2))"),
      ("    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # (B, H, T+1): queries T-1 .. 2T-1\n    return stripe[..., 1:].mean(dim=(0, 2))  # (H,): queries T .. 2T-1, the second half",
       "    total = 0\n    for i in range(seq_len, 2 * seq_len):\n        total = total + pattern[:, :, i, i - seq_len + 1].sum(dim=0)\n    return total / (pattern.size(0) * seq_len)")],
     "CORRECT: repeat(1,2); advanced indexing; an explicit loop for induction", "full marks")
case("c10_e10_where_and_int", 10,
     [("return 6 * d_model", "return (24 * d_model * d_model) // (4 * d_model)"),
      ("        p = torch.exp(s - shift)  # (..., L_q, b)",
       "        p = torch.where(s == float(\"-inf\"), torch.zeros_like(s), torch.exp(s - shift))"),
      ("    return o / l.masked_fill(l == 0, 1.0)  # (..., L_q, d_v) a query that sees no key: 0 / 1",
       "    safe_l = torch.where(l > 0, l, torch.ones_like(l))\n    return o / safe_l")],
     "CORRECT: integer-division crossover; torch.where zeroing; where-guarded division", "full marks")

# ---------------------------------------------------------------- batch 2 (added after batch 1 was graded,
# predictions written before batch 2 was graded)
BATCH2 = {"m84_e8_len_counts_nonzero", "m85_e4_additive_mask_float32", "m86_e6_bias_ignored",
          "m87_e1_fused_width_from_dmodel", "m88_e9_find_heads_seq_len_L", "c11_e3_dk_from_k",
          "c12_e6_loop_over_heads", "c13_e10_blocks_reversed", "c14_e9_loops"}
case("m84_e8_len_counts_nonzero", 8,
     [("start, end = self.length, self.length + k.size(2)", "start = len(self)\n        end = start + k.size(2)"),
      ("        return self.length\n", "        return int((self.k[0, 0].abs().sum(-1) != 0).sum())  # filled rows\n")],
     "len(cache) counts non-zero key rows (a token whose key is all zeros is not counted; reset does not zero)",
     "len must be a counter: counting non-zero rows misses zero keys and stale rows after reset")
case("m85_e4_additive_mask_float32", 4,
     [('return scores.masked_fill(~mask, float("-inf"))', 'return scores + torch.where(mask, 0.0, float("-inf"))')],
     "additive mask built by torch.where with Python floats (float32): float16/bfloat16 scores come back float32",
     "dtype: the additive mask is float32 and promotes half-precision scores; keep scores' dtype")
case("m86_e6_bias_ignored", 6,
     [("self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)", "self.qkv = nn.Linear(d_model, 3 * d_model)"),
      ("self.out = nn.Linear(d_model, d_model, bias=bias)", "self.out = nn.Linear(d_model, d_model)")],
     "MultiHeadAttention ignores its bias argument (always bias=True)",
     "bias=False must give layers without bias (state dict keys / output differ)")
case("m87_e1_fused_width_from_dmodel", 1,
     [("d = w_qkv.size(-1) // 3", "d = w_qkv.size(0)")],
     "fused_project takes the piece width from d_model (w_qkv.size(0)): right only when d == d_model",
     "the piece width is w_qkv.size(-1) // 3, not d_model (only visible when they differ)")
case("m88_e9_find_heads_seq_len_L", 9,
     [('"induction": induction_score(pattern, pattern.size(-1) // 2)}', '"induction": induction_score(pattern, pattern.size(-1))}')],
     "find_heads passes seq_len = L instead of L // 2 (induction_score raises)",
     "seq_len is L // 2 (the sequence is repeated twice)")
case("c11_e3_dk_from_k", 3,
     [("    d_k = q.size(-1)\n    scores", "    d_k = k.size(-1)  # keys have the same width\n    scores")],
     "CORRECT: d_k read from k's width", "full marks")
case("c12_e6_loop_over_heads", 6,
     [("        q = split_heads(q, self.n_heads)  # (B, H, L, d_head)\n        k = split_heads(k, self.n_heads)  # (B, H, L, d_head)\n        v = split_heads(v, self.n_heads)  # (B, H, L, d_head)\n        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)\n        y = merge_heads(y)  # concat heads: (B, L, H*d_head) = (B, L, D)\n",
       "        if mask is None:\n            mask = causal_mask(L, x.device)\n        mask = mask.expand(B, self.n_heads, L, L)  # one (L, L) mask per head\n        outs = []\n        for h in range(self.n_heads):  # one head at a time, as in the chapter's picture\n            cols = slice(h * self.d_head, (h + 1) * self.d_head)\n            y_h, _ = scaled_dot_product_attention(q[..., cols], k[..., cols], v[..., cols], mask[:, h])\n            outs.append(y_h)  # (B, L, d_head)\n        y = torch.cat(outs, dim=-1)  # (B, L, D)\n")],
     "CORRECT: a Python loop over heads with column slices, then cat", "full marks")
case("c13_e10_blocks_reversed", 10,
     [("    for start in range(0, L_k, block_size):\n        k_block", "    for start in reversed(range(0, L_k, block_size)):  # any order works\n        k_block")],
     "CORRECT: tiled attention reads the key blocks last to first (online softmax is order-free)", "full marks")
case("c14_e9_loops", 9,
     [("    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [..., i-1] = pattern[..., i, i-1]\n    return below.mean(dim=(0, 2))  # (H,)",
       "    B, H, L, _ = pattern.shape\n    total = torch.zeros(H, dtype=pattern.dtype, device=pattern.device)\n    for i in range(1, L):\n        total = total + pattern[:, :, i, i - 1].sum(dim=0)\n    return total / (B * (L - 1))")],
     "CORRECT: previous-token score with an explicit loop over queries", "full marks")

# ---------------------------------------------------------------- batch 3 (added after batch 2 was graded,
# predictions written before batch 3 was graded): probes of error paths and more doubles
BATCH3 = {"m89_e8_mask_square", "m90_e7_kv_view_nheads", "m91_e9_diag_dims_swapped",
          "m92_e5_sum_guard_missing", "m93_e4_causal_float_mask", "d11_e1_transposed_and_interleaved",
          "d12_e9_interleaved_and_ge", "d13_e6_nocausal_and_noout", "d14_e10_float_and_lastblock"}
case("m89_e8_mask_square", 8,
     [("mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)",
       "mask = torch.ones(T_new, T_new, dtype=torch.bool, device=x.device)")],
     "cached mask built (T_new, T_new): shape error against past+T_new keys once something is cached",
     "mask must be (T_new, past + T_new): the new queries also see the cached keys")
case("m90_e7_kv_view_nheads", 7,
     [("k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)",
       "k = self.k_proj(x).view(B, L, self.n_heads, -1).transpose(1, 2)"),
      ("v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)",
       "v = self.v_proj(x).view(B, L, self.n_heads, -1).transpose(1, 2)")],
     "K/V split into n_heads heads (copy-paste from q): wrong head width; fine only when H_kv == H",
     "K and V have n_kv_heads heads of d_head, not n_heads (view(B, L, n_kv_heads, d_head))")
case("m91_e9_diag_dims_swapped", 9,
     [("below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)", "below = pattern.diagonal(offset=-1, dim1=-1, dim2=-2)")],
     "diagonal with dim1/dim2 swapped: reads pattern[i-1, i] (above the diagonal, the future)",
     "wrong axis order: query is dim -2, key dim -1; reads key i+1 / above the diagonal")
case("m92_e5_sum_guard_missing", 5,
     [("return e / total.masked_fill(total == 0, 1.0)", "return e / total")],
     "max guarded but the sum of an all -inf slice is 0: 0/0 = NaN",
     "fully masked slice: divide by 1 where the sum is 0 (0/0 NaN)")
case("m93_e4_causal_float_mask", 4,
     [("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))",
       "return torch.tril(torch.ones(L, L, device=device))")],
     "causal mask returned as float 1/0, not bool",
     "mask dtype must be bool (True = may attend); a float mask breaks ~mask")
case("d11_e1_transposed_and_interleaved", 1,
     [("q = x @ w_q  #", "q = x @ w_q.T  #"), ("k = x @ w_k  #", "k = x @ w_k.T  #"),
      ("v = x @ w_v  #", "v = x @ w_v.T  #"),
      ("q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)",
       "q, k, v = qkv[..., 0::3], qkv[..., 1::3], qkv[..., 2::3]  # every third column")],
     "TWO: project uses W.T; fused_project reads interleaved columns",
     "both: X @ W (not W^T) in project; contiguous blocks in fused_project")
case("d12_e9_interleaved_and_ge", 9,
     [("return torch.cat([first, first], dim=1)", "return first.repeat_interleave(2, dim=1)"),
      ("if score[head] > threshold]", "if score[head] >= threshold]")],
     "TWO: repeated_tokens doubles each token; find_heads uses >=",
     "both: the sequence repeated whole; strictly above the threshold")
case("d13_e6_nocausal_and_noout", 6,
     [("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n", ""),
      ("return self.out(y)  # mix heads with W_O: (B, L, D)", "return y  # (B, L, D)")],
     "TWO: MHA forward without the default causal mask and without W_O",
     "both: causal by default; output projection W_O")
case("d14_e10_float_and_lastblock", 10,
     [("return 6 * d_model", "return 24 * d_model ** 2 / (4 * d_model)"),
      ("for start in range(0, L_k, block_size):", "for start in range(0, L_k - block_size + 1, block_size):")],
     "TWO: crossover returns a float; tiled loop drops the last partial block",
     "both: int crossover; last shorter block")

# ---------------------------------------------------------------- batch 4 (added after batch 3 was graded,
# predictions written before batch 4 was graded): more valid variants (false-fail hunt) and two probes
BATCH4 = {"c15_e5_where_max_matmul", "c16_e7_grouped_broadcast", "c17_e10_second_pass_blocks",
          "c18_e1_functional_linear", "c19_e6_merge_reshape", "m94_e7_default_mask_cpu",
          "m95_e8_update_returns_new_only"}
case("c15_e5_where_max_matmul", 5,
     [("    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score of each slice\n    x_max = x_max.masked_fill(x_max == float(\"-inf\"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0\n    e = torch.exp(x - x_max)  # (x's shape) every entry <= 1: no overflow; e^-inf = 0\n    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...) > 0 unless the slice was all -inf\n    return e / total.masked_fill(total == 0, 1.0)  # (x's shape) an all -inf slice: 0 / 1 = 0",
       "    x_max = torch.max(x, dim=dim, keepdim=True).values\n    x_max = torch.where(torch.isinf(x_max) & (x_max < 0), torch.zeros_like(x_max), x_max)\n    e = torch.exp(x - x_max)\n    total = e.sum(dim=dim, keepdim=True)\n    ok = total > 0\n    return torch.where(ok, e / torch.where(ok, total, torch.ones_like(total)), torch.zeros_like(e))"),
      ("    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)",
       "    scores = torch.matmul(q, k.mT) * d_k ** -0.5")],
     "CORRECT: softmax with torch.max(...).values and torch.where guards; sdpa with matmul and d_k**-0.5", "full marks")
case("c16_e7_grouped_broadcast", 7,
     [("        rep = self.n_heads // self.n_kv_heads\n        k = repeat_kv(k, rep)  # (B, H, L, dh): each KV head serves `rep` query heads\n        v = repeat_kv(v, rep)  # (B, H, L, dh)\n        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)\n",
       "        rep = self.n_heads // self.n_kv_heads\n        if mask is None:\n            mask = causal_mask(L, x.device)\n        if mask.dim() >= 3:  # per-head masks: group them like the query heads\n            mask = mask.expand(B, self.n_heads, L, L).reshape(B, self.n_kv_heads, rep, L, L)\n        qg = q.reshape(B, self.n_kv_heads, rep, L, self.d_head)  # query heads grouped by their KV head\n        y, _ = scaled_dot_product_attention(qg, k.unsqueeze(2), v.unsqueeze(2), mask)  # KV broadcast over the group\n        y = y.reshape(B, self.n_heads, L, self.d_head)\n")],
     "CORRECT: GQA without copying KV heads: query heads grouped (B, H_kv, rep, L, dh), K/V broadcast", "full marks")
case("c17_e10_second_pass_blocks", 10,
     [("    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)  # (..., n) a row of only -inf: 0 / 1",
       "    denom = l.masked_fill(l == 0, 1.0)\n    parts = [torch.exp(x[..., s:s + block_size] - shift) / denom for s in range(0, x.size(-1), block_size)]\n    return torch.cat(parts, dim=-1)")],
     "CORRECT: online_softmax's second pass also block by block, then cat", "full marks")
case("c18_e1_functional_linear", 1,
     [("q = x @ w_q  #", "q = torch.nn.functional.linear(x, w_q.T)  #"),
      ("k = x @ w_k  #", "k = torch.nn.functional.linear(x, w_k.T)  #"),
      ("v = x @ w_v  #", "v = torch.nn.functional.linear(x, w_v.T)  #"),
      ("    q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)\n", "    q, k, v = qkv.chunk(3, dim=-1)\n")],
     "CORRECT: F.linear with the transposed weight (nn.Linear's layout); chunk(3)", "full marks")
case("c19_e6_merge_reshape", 6,
     [("    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works\n    return x.view(B, L, H * d_head)",
       "    return x.transpose(1, 2).reshape(B, L, H * d_head)  # reshape copies when it must")],
     "CORRECT: merge_heads with transpose + reshape", "full marks")
case("m94_e7_default_mask_cpu", 7,
     [("mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)", "mask = causal_mask(L)  # (L, L)")],
     "GQA default causal mask made on the CPU (device slip, CUDA only)",
     "device: causal_mask(L, x.device); only visible on a GPU (or a simulated one)")
case("m95_e8_update_returns_new_only", 8,
     [("return self.k[:, :, :end], self.v[:, :, :end]", "return k, v")],
     "update returns only the new keys/values, not everything cached",
     "update must return all cached keys/values [:, :, :len]; the new tokens then attend to nothing cached")

# ---------------------------------------------------------------- batch 5 (added after batch 4 was graded,
# predictions written before batch 5 was graded): two mistakes inside ONE function (d13 lost both)
BATCH5 = {"d15_e5_sdpa_maskinv_and_querydim", "d16_e8_forward_nopast_and_float32",
          "d17_e10_tiled_o_and_ge", "d18_e7_forward_merge_and_rep"}
case("d15_e5_sdpa_maskinv_and_querydim", 5,
     [('scores = scores.masked_fill(~mask, float("-inf"))', 'scores = scores.masked_fill(mask, float("-inf"))'),
      ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)")],
     "TWO in sdpa: mask inverted; softmax over queries",
     "both: True = may attend; softmax over keys (dim -1)")
case("d16_e8_forward_nopast_and_float32", 8,
     [("mask = mask.tril(diagonal=past)", "mask = mask.tril()"),
      ("y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T_new, dh)",
       "y, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)  # (B, H, T_new, dh)\n        y = y.to(x.dtype)")],
     "TWO in CachedGQA.forward: mask ignores past; attention in float32",
     "both: tril(diagonal=past); float64 computed in float64")
case("d17_e10_tiled_o_and_ge", 10,
     [("o = o * rescale + p @ v_block", "o = o + p @ v_block"),
      ("s = s.masked_fill(key > position, float(\"-inf\"))", "s = s.masked_fill(key >= position, float(\"-inf\"))")],
     "TWO in tiled_attention: o not rescaled; causal hides the diagonal",
     "both: rescale o; a query sees its own position")
case("d18_e7_forward_merge_and_rep", 7,
     [("y = y.transpose(1, 2).contiguous().view(B, L, -1)", "y = y.reshape(B, L, -1)"),
      ("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads")],
     "TWO in GQA.forward: heads merged without transpose; n_rep = n_kv_heads",
     "both: transpose before merging; n_rep = n_heads // n_kv_heads")


def strip_markers(text):
    out = []
    for line in text.splitlines(keepends=True):
        s = line.strip()
        if s in ("# BEGIN SOLUTION", "# END SOLUTION") or s.startswith("# HINT:"):
            continue
        out.append(line)
    return "".join(out)


def main():
    names = set()
    for name, ex, edits, mistake, predict in CASES:
        assert name not in names, name
        names.add(name)
        src = open(os.path.join(SOL, FILES[ex])).read()
        for old, new in edits:
            n = src.count(old)
            if n != 1:
                sys.exit(f"{name}: edit matches {n} times: {old!r}")
            src = src.replace(old, new)
        src = strip_markers(src)
        d = os.path.join(ROOT, name)
        os.makedirs(os.path.join(d, "sub"), exist_ok=True)
        with open(os.path.join(d, "sub", FILES[ex]), "w") as f:
            f.write(src)
        with open(os.path.join(d, "exercise"), "w") as f:
            f.write(f"exercise{ex}\n")
    with open(os.path.join(ROOT, "predictions.md"), "w") as f:
        f.write("# Round 85 predictions (written by gen/make.py before any grading)\n\n")
        f.write("| file | exercise | mistake(s) | a good diagnosis must name |\n|---|---|---|---|\n")
        for name, ex, edits, mistake, predict in CASES:
            if name not in BATCH2 and name not in BATCH3 and name not in BATCH4 and name not in BATCH5:
                f.write(f"| {name} | exercise{ex} | {mistake} | {predict} |\n")
        f.write("\n## Batch 2 (added after batch 1 was graded; written before batch 2 was graded)\n\n")
        f.write("| file | exercise | mistake(s) | a good diagnosis must name |\n|---|---|---|---|\n")
        for name, ex, edits, mistake, predict in CASES:
            if name in BATCH2:
                f.write(f"| {name} | exercise{ex} | {mistake} | {predict} |\n")
        f.write("\n## Batch 3 (added after batch 2 was graded; written before batch 3 was graded)\n\n")
        f.write("| file | exercise | mistake(s) | a good diagnosis must name |\n|---|---|---|---|\n")
        for name, ex, edits, mistake, predict in CASES:
            if name in BATCH3:
                f.write(f"| {name} | exercise{ex} | {mistake} | {predict} |\n")
        f.write("\n## Batch 4 (added after batch 3 was graded; written before batch 4 was graded)\n\n")
        f.write("| file | exercise | mistake(s) | a good diagnosis must name |\n|---|---|---|---|\n")
        for name, ex, edits, mistake, predict in CASES:
            if name in BATCH4:
                f.write(f"| {name} | exercise{ex} | {mistake} | {predict} |\n")
        f.write("\n## Batch 5 (added after batch 4 was graded; written before batch 5 was graded)\n\n")
        f.write("| file | exercise | mistake(s) | a good diagnosis must name |\n|---|---|---|---|\n")
        for name, ex, edits, mistake, predict in CASES:
            if name in BATCH5:
                f.write(f"| {name} | exercise{ex} | {mistake} | {predict} |\n")
    print(len(CASES), "cases;",
          sum(n.startswith("m") for n in names), "single,",
          sum(n.startswith("d") for n in names), "double,",
          sum(n.startswith("c") for n in names), "correct")


if __name__ == "__main__":
    main()
