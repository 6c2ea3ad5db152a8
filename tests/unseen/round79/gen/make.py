import os, re, sys
SOL = "/work/scratch23/solutions"
OUT = "/work/round79"
FILES = {1:"exercise1_projection.py",2:"exercise2_scoring.py",3:"exercise3_scaling.py",4:"exercise4_masking.py",
 5:"exercise5_softmax.py",6:"exercise6_multihead.py",7:"exercise7_gqa.py",8:"exercise8_kv_cache.py",
 9:"exercise9_head_patterns.py",10:"exercise10_tiled_attention.py"}
M = []
def m(name, ex, *reps):
    M.append((name, ex, reps))

# ---- ex1
m("m01_k_uses_wq", 1, ("k = x @ w_k", "k = x @ w_q"))
m("m02_fused_width_dmodel", 1, ("d = w_qkv.size(-1) // 3", "d = x.size(-1)  # each projection is d_model wide"))
m("m03_weight_transposed", 1, ("q = x @ w_q ", "q = x @ w_q.T "), ("k = x @ w_k ", "k = x @ w_k.T "), ("v = x @ w_v ", "v = x @ w_v.T "))
# ---- ex2
m("m04_dot_T_batch", 2, ("return q @ k.transpose(-2, -1)", "return q @ k.T"))
m("m05_scores_transposed", 2, ("return q @ k.transpose(-2, -1)", "return k @ q.transpose(-2, -1)"))
# ---- ex3
m("m06_divide_by_dk", 3, ("return scores / math.sqrt(d_k)", "return scores / d_k"))
m("m07_dk_from_seq_len", 3, ("d_k = q.size(-1)", "d_k = k.size(-2)"))
m("m08_cast_float32", 3, ("return scores / math.sqrt(d_k)", "return scores.float() / math.sqrt(d_k)"))
# ---- ex4
m("m09_tril_no_diagonal", 4, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)"))
m("m10_triu_future", 4, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))"))
m("m11_padding_le_offbyone", 4, ("real = positions < lengths[:, None]", "real = positions <= lengths[:, None]"))
m("m12_padding_query_axis", 4, ("return real[:, None, :]", "return real[:, :, None]"))
m("m13_mask_neg_large", 4, ('return scores.masked_fill(~mask, float("-inf"))', "return scores.masked_fill(~mask, -1e9)"))
m("m14_D_apply_nonot_inplace", 4, ('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill_(mask, float("-inf"))'))
# ---- ex5
m("m15_softmax_no_max", 5, ("e = torch.exp(x - x_max)", "e = torch.exp(x)"))
m("m16_softmax_ignores_dim", 5, ("x_max = x.amax(dim=dim, keepdim=True)", "x_max = x.amax(dim=-1, keepdim=True)"), ("total = e.sum(dim=dim, keepdim=True)", "total = e.sum(dim=-1, keepdim=True)"))
m("m17_softmax_global_max", 5, ("x_max = x.amax(dim=dim, keepdim=True)", "x_max = x.amax()"))
m("m18_softmax_nan_to_num", 5, (
 '''    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score of each slice
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)  # (..., 1, ...) an all -inf slice: shift by 0
    e = torch.exp(x - x_max)  # (x's shape) every entry <= 1: no overflow; e^-inf = 0
    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...) > 0 unless the slice was all -inf
    return e / total.masked_fill(total == 0, 1.0)''',
 '''    x_max = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - x_max)
    out = e / e.sum(dim=dim, keepdim=True)
    return torch.nan_to_num(out, nan=0.0)  # all -inf rows give NaN: turn them into zeros'''))
m("m19_sdpa_softmax_queries", 5, ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)"))
m("m20_sdpa_mask_after_softmax", 5, (
 '''    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)''',
 '''    weights = softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask  # zero the keys the query may not see'''))
m("m21_D_nomax_noscale", 5, ("e = torch.exp(x - x_max)", "e = torch.exp(x)"), ("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1)"))
# ---- ex6
m("m22_split_view_no_transpose", 6, (
 '''    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks
    return x.transpose(1, 2)''',
 '''    return x.view(B, n_heads, L, D // n_heads)'''))
m("m23_split_strided_heads", 6, (
 '''    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks
    return x.transpose(1, 2)''',
 '''    x = x.view(B, L, D // n_heads, n_heads)  # (B, L, d_head, H)
    return x.permute(0, 3, 1, 2)  # (B, H, L, d_head)'''))
m("m24_merge_no_transpose", 6, (
 '''    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works
    return x.view(B, L, H * d_head)''',
 '''    return x.reshape(B, L, H * d_head)'''))
m("m25_merge_no_contiguous", 6, ("x = x.transpose(1, 2).contiguous()", "x = x.transpose(1, 2)"))
m("m26_mha_scale_dmodel", 6, (
 '''        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        y = merge_heads(y)''',
 '''        scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # scale by the model width
        scores = scores.masked_fill(~mask, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        y = merge_heads(y)'''))
m("m27_mha_qkv_interleaved", 6, (
 '''        q, k, v = self.qkv(x).split(D, dim=-1)  # three (B, L, D)
        q = split_heads(q, self.n_heads)  # (B, H, L, d_head)
        k = split_heads(k, self.n_heads)  # (B, H, L, d_head)
        v = split_heads(v, self.n_heads)  # (B, H, L, d_head)''',
 '''        qkv = self.qkv(x).view(B, L, self.n_heads, 3 * self.d_head).transpose(1, 2)  # (B, H, L, 3dh)
        q, k, v = qkv.split(self.d_head, dim=-1)  # each (B, H, L, d_head)'''))
m("m28_mha_always_causal", 6, (
 '''        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)''',
 '''        mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)'''))
m("m29_D_split_merge_noT", 6, (
 '''    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks
    return x.transpose(1, 2)''',
 '''    return x.view(B, n_heads, L, D // n_heads)'''), (
 '''    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works
    return x.view(B, L, H * d_head)''',
 '''    return x.reshape(B, L, H * d_head)'''))
m("m30_D_mha_nocausal_scale_dmodel", 6, (
 """        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)""",
 """        scores = q @ k.transpose(-2, -1) / math.sqrt(D)  # (B, H, L, L)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v  # (B, H, L, d_head)"""))
# ---- ex7
m("m31_repeat_expand_tiled", 7, ("return x.repeat_interleave(n_rep, dim=1)",
 "B, H_kv, L, d = x.shape\n    return x[:, None].expand(B, n_rep, H_kv, L, d).reshape(B, n_rep * H_kv, L, d)"))
m("m32_repeat_seq_axis", 7, ("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat_interleave(n_rep, dim=2)"))
m("m33_gqa_forgot_v", 7, ("        v = repeat_kv(v, rep)  # (B, H, L, dh)\n", ""))
m("m34_gqa_group_modulo", 7, (
 '''        k = repeat_kv(k, rep)  # (B, H, L, dh): each KV head serves `rep` query heads
        v = repeat_kv(v, rep)  # (B, H, L, dh)''',
 '''        # query head h reads KV head h % n_kv_heads
        idx = torch.arange(self.n_heads, device=x.device) % self.n_kv_heads
        k = k[:, idx]  # (B, H, L, dh)
        v = v[:, idx]  # (B, H, L, dh)'''))
m("m35_gqa_float32", 7, ("y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)", "y, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)  # attention in float32 for speed\n        y = y.to(q.dtype)"))
m("m36_gqa_mask_combined", 7, (
 '''        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)''',
 '''        causal = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)
        mask = causal if mask is None else (mask & causal)'''))
m("m37_D_tiled_merge_noT", 7, ("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat(1, n_rep, 1, 1)"),
  ("y = y.transpose(1, 2).contiguous().view(B, L, -1)", "y = y.reshape(B, L, -1)"))
# ---- ex8
m("m38_bytes_no_factor2", 8, ("return 2 * n_layers", "return n_layers"))
m("m39_bytes_no_batch", 8, ("* seq_len * batch_size * bytes_per_value", "* seq_len * bytes_per_value"))
m("m40_cache_heads_axis", 8, ("self.k[:, :, start:end] = k ", "self.k[:, start:end] = k "), ("self.v[:, :, start:end] = v ", "self.v[:, start:end] = v "),
  ("return self.k[:, :, :end], self.v[:, :, :end]", "return self.k[:, :end], self.v[:, :end]"))
m("m41_cache_no_advance", 8, ("        self.length = end\n", ""))
m("m42_cache_capacity_offbyone", 8, ("if end > self.max_len:", "if end >= self.max_len:"))
m("m43_cache_returns_all_storage", 8, ("return self.k[:, :, :end], self.v[:, :, :end]", "return self.k, self.v"))
m("m44_cache_cat_grow", 8, (
 '''        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past
        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]''',
 '''        if start == 0:
            self.k_all, self.v_all = k, v
        else:
            self.k_all = torch.cat([self.k_all, k], dim=2)
            self.v_all = torch.cat([self.v_all, v], dim=2)
        self.length = end
        return self.k_all, self.v_all'''))
m("m45_cached_mask_diag0", 8, ("mask = mask.tril(diagonal=past)", "mask = mask.tril()"))
m("m46_cached_past_after_update", 8, (
 '''        past = 0 if cache is None else len(cache)  # tokens already cached
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)''',
 '''        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)
        past = 0 if cache is None else len(cache)  # tokens already cached'''),
 ("mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)", "mask = torch.ones(T_new, k.size(2), dtype=torch.bool, device=x.device)"))
m("m47_cached_no_mask", 8, (
 '''        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)  # (T_new, past + T_new)
        mask = mask.tril(diagonal=past)  # (T_new, past + T_new)
        y, _ = scaled_dot_product_attention(q, k, v, mask)''',
 '''        # one new token may read everything cached: no mask needed
        y, _ = scaled_dot_product_attention(q, k, v)'''))
m("m48_cached_detach", 8, ("k, v = cache.update(k, v)", "k, v = cache.update(k.detach(), v.detach())"))
m("m49_cached_repeat_before_cache", 8, (
 '''        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)
        rep = self.n_heads // self.n_kv_heads
        k = repeat_kv(k, rep)  # (B, H, past + T_new, dh)
        v = repeat_kv(v, rep)  # (B, H, past + T_new, dh)''',
 '''        rep = self.n_heads // self.n_kv_heads
        k = repeat_kv(k, rep)  # (B, H, T_new, dh)
        v = repeat_kv(v, rep)
        if cache is not None:
            k, v = cache.update(k, v)  # (B, H, past + T_new, dh)'''))
m("m50_D_cache_axis_noadvance", 8, ("self.k[:, :, start:end] = k ", "self.k[:, start:end] = k "), ("self.v[:, :, start:end] = v ", "self.v[:, start:end] = v "),
  ("return self.k[:, :, :end], self.v[:, :, :end]", "return self.k[:, :end], self.v[:, :end]"), ("        self.length = end\n", ""))
m("m51_T_bytes_past_detach", 8, ("return 2 * n_layers", "return n_layers"), (
 '''        past = 0 if cache is None else len(cache)  # tokens already cached
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)''',
 '''        if cache is not None:
            k, v = cache.update(k.detach(), v.detach())  # (B, Hkv, past + T_new, dh)
        past = 0 if cache is None else len(cache)  # tokens already cached'''),
 ("mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)", "mask = torch.ones(T_new, k.size(2), dtype=torch.bool, device=x.device)"))
# ---- ex9
m("m52_repeat_fresh_second_half", 9, ("return torch.cat([first, first], dim=1)", "second = torch.randint(vocab_size, (batch, seq_len), generator=generator)\n    return torch.cat([first, second], dim=1)"))
m("m53_prev_superdiag", 9, ("below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)", "below = pattern.diagonal(offset=1, dim1=-2, dim2=-1)"))
m("m54_prev_mean_axes", 9, ("return below.mean(dim=(0, 2))  # (H,)\n", "return below.mean(dim=(0, 1))  # (H,)\n"))
m("m55_induction_same_token", 9, ("stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)", "stripe = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)"),
  ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))"))
m("m56_induction_includes_first", 9, ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))"))
m("m57_D_find_heads_tensor_ge", 9, ("found[kind] += [(layer, head) for head in range(pattern.size(1)) if score[head] > threshold]",
 "found[kind] += [(layer, h) for h in torch.nonzero(score >= threshold).flatten()]"))
m("m58_D_prev_superdiag_ind_first", 9, ("below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)", "below = pattern.diagonal(offset=1, dim1=-2, dim2=-1)"),
  ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))"))
# ---- ex10
m("m59_cost_core_half", 10, ('"core_attention": 4 * L * L * d_model', '"core_attention": 2 * L * L * d_model'))
m("m60_crossover_no_ffn", 10, ("return 6 * d_model", "return 2 * d_model"))
m("m61_online_no_rescale", 10, ("l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)", "l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"))
m("m62_online_rescale_inverted", 10, ("l = l * torch.exp(m - shift) + torch.exp(block - shift)", "l = l * torch.exp(shift - m.masked_fill(m == float('-inf'), 0.0)) + torch.exp(block - shift)"))
m("m63_online_block_max_not_running", 10, ("m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))  # (..., 1)\n", "m_new = block.amax(dim=-1, keepdim=True)  # (..., 1) this block's max\n"))
m("m64_tiled_no_o_rescale", 10, ("o = o * rescale + p @ v_block", "o = o + p @ v_block"))
m("m65_tiled_causal_query_offset", 10, ("position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]", "position = torch.arange(L_q, device=q.device)[:, None]"))
m("m66_tiled_full_scores", 10, (
 '''    for start in range(0, L_k, block_size):
        k_block = k[..., start:start + block_size, :]  # (..., b, d_k) the last block may be shorter
        v_block = v[..., start:start + block_size, :]  # (..., b, d_v)
        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, b) one block of scores''',
 '''    S = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # all scores once, then walk its blocks
    for start in range(0, L_k, block_size):
        v_block = v[..., start:start + block_size, :]  # (..., b, d_v)
        s = S[..., start:start + block_size]  # (..., L_q, b)
        k_block = v_block'''))
m("m67_tiled_causal_excl_diag", 10, ("s = s.masked_fill(key > position, float(\"-inf\"))", "s = s.masked_fill(key >= position, float(\"-inf\"))"))
m("m68_D_online_norescale_noinf", 10, (
 '''        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., 1) nothing finite yet: shift by 0
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)  # rescale, then add''',
 '''        shift = m_new
        l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)'''))
m("m69_T_crossover_noscale_offset", 10, ("return 6 * d_model", "return 2 * d_model"),
  ("s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))", "s = q @ k_block.transpose(-2, -1)"),
  ("position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]", "position = torch.arange(L_q, device=q.device)[:, None]"))
m("m70_D_tiled_o_norescale_excl_diag", 10, ("o = o * rescale + p @ v_block", "o = o + p @ v_block"),
  ("s = s.masked_fill(key > position, float(\"-inf\"))", "s = s.masked_fill(key >= position, float(\"-inf\"))"))

# ---- batch 2 (added after batch-1 grading; predictions appended before grading these)
m("m71_tiled_no_scale", 10, ("s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))", "s = q @ k_block.transpose(-2, -1)"))
m("m72_online_no_inf_guard", 10, ('shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., 1) nothing finite yet: shift by 0', "shift = m_new"),
  ('shift = m.masked_fill(m == float("-inf"), 0.0)  # (..., 1)\n', "shift = m\n"))
m("m73_cache_reset_realloc", 8, ("        self.length = 0\n        # END SOLUTION\n\n    def update", "        self.length = 0\n        self.k = torch.zeros_like(self.k)\n        self.v = torch.zeros_like(self.v)\n        # END SOLUTION\n\n    def update"))
m("m74_cache_check_after_write", 8, (
 """        if end > self.max_len:
            raise ValueError(f"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}")
        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past
        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)
        self.length = end""",
 """        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past
        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)
        self.length = end
        if end > self.max_len:
            raise ValueError(f"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}")"""))
m("m75_project_torch_mm", 1, ("q = x @ w_q ", "q = torch.mm(x, w_q) "), ("k = x @ w_k ", "k = torch.mm(x, w_k) "), ("v = x @ w_v ", "v = torch.mm(x, w_v) "))
m("m76_scores_einsum_3d", 2, ("return q @ k.transpose(-2, -1)", "return torch.einsum('bqd,bkd->bqk', q, k)"))
m("m77_causal_no_device", 4, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.tril(torch.ones(L, L)).bool()"))
m("m78_softmax_inplace_input", 5, ("e = torch.exp(x - x_max)", "x -= x_max  # shift in place to save memory\n    e = torch.exp(x)"))
m("m79_gqa_kv_view_nheads", 7, ("k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head)", "k = self.k_proj(x).view(B, L, self.n_heads, self.d_head)"),
  ("v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head)", "v = self.v_proj(x).view(B, L, self.n_heads, self.d_head)"))
m("m80_prev_no_L2_check", 9, ("""    if pattern.size(-1) < 2:
        raise ValueError("a previous-token score needs L >= 2 (query 0 has no previous token)")
""", ""))
m("m81_repeat_ignores_generator", 9, ("first = torch.randint(vocab_size, (batch, seq_len), generator=generator)", "first = torch.randint(vocab_size, (batch, seq_len))"))
m("m82_scale_sqrt_float32", 3, ("return scores / math.sqrt(d_k)", "return scores / torch.sqrt(torch.tensor(d_k))"))
m("m83_mha_bias_ignored", 6, ("self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)", "self.qkv = nn.Linear(d_model, 3 * d_model)"), ("self.out = nn.Linear(d_model, d_model, bias=bias)", "self.out = nn.Linear(d_model, d_model)"))
m("m84_tiled_o_dk_shape", 10, ("o = q.new_zeros(*q.shape[:-1], v.size(-1))", "o = torch.zeros_like(q)"))
m("m85_cached_past_from_storage", 8, ("past = 0 if cache is None else len(cache)  # tokens already cached", "past = 0 if cache is None else int((cache.k[0, 0].abs().sum(-1) != 0).sum())  # filled rows"))

# ---- batch 3 (confusable mistakes, added after batch 2; predictions appended before grading)
m("m86_merge_permute_strided", 6, ("""    x = x.transpose(1, 2).contiguous()  # (B, L, H, d_head), laid out so that view works
    return x.view(B, L, H * d_head)""", """    x = x.permute(0, 2, 3, 1).contiguous()  # (B, L, d_head, H)
    return x.view(B, L, H * d_head)"""))
m("m87_softmax_subtract_min", 5, ("x_max = x.amax(dim=dim, keepdim=True)", "x_max = x.amin(dim=dim, keepdim=True)"))
m("m88_tiled_p_old_max", 10, ("p = torch.exp(s - shift)  # (..., L_q, b)", "p = torch.exp(s - m.masked_fill(m == float('-inf'), 0.0))  # (..., L_q, b)"))
m("m89_cached_mask_square", 8, ("mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)", "mask = torch.ones(T_new, T_new, dtype=torch.bool, device=x.device)"))
m("m90_gqa_rep_swapped", 7, ("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads"))
m("m91_apply_mask_mul_inf", 4, ('return scores.masked_fill(~mask, float("-inf"))', 'return scores + (~mask) * float("-inf")'))

def strip(src):
    # remove the solution HINT comments and BEGIN/END markers, as a student file would look
    out = []
    for line in src.splitlines(True):
        s = line.strip()
        if s.startswith("# BEGIN SOLUTION") or s.startswith("# END SOLUTION") or s.startswith("# HINT:"):
            continue
        out.append(line)
    return "".join(out)

for name, ex, reps in M:
    src = open(os.path.join(SOL, FILES[ex])).read()
    for old, new in reps:
        n = src.count(old)
        assert n >= 1, (name, old)
        src = src.replace(old, new)
    src = strip(src)
    d = os.path.join(OUT, name, "sub"); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, FILES[ex]), "w").write(src)
    open(os.path.join(OUT, name, "exercise"), "w").write(f"exercise{ex}\n")
    compile(src, name, "exec")
print(len(M))
