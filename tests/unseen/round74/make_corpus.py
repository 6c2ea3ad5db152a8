import os, re, shutil
SOL = "/work/scratch20/solutions"
OUT = "/work/round74"
F = {1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
     4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
     7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
     10: "exercise10_tiled_attention.py"}
M = []
def m(name, ex, *edits): M.append((name, ex, edits))

# ---- exercise 1
m("m01_proj_linear_T", 1, ("q = x @ w_q ", "q = x @ w_q.T "), ("k = x @ w_k ", "k = x @ w_k.T "), ("v = x @ w_v ", "v = x @ w_v.T "))
m("m02_fused_split3", 1, ("q, k, v = qkv.split(d, dim=-1)", "q, k, v = qkv.split(3, dim=-1)"))
m("m03_fused_interleaved", 1, ("q, k, v = qkv.split(d, dim=-1)", "q, k, v = qkv.view(*qkv.shape[:-1], d, 3).unbind(-1)"))
# ---- exercise 2
m("m04_scores_dotT", 2, ("return q @ k.transpose(-2, -1)", "return q @ k.T"))
m("m05_scores_swapped", 2, ("return q @ k.transpose(-2, -1)", "return k @ q.transpose(-2, -1)"))
m("m06_scores_pairwise", 2, ("return q @ k.transpose(-2, -1)", "return (q * k).sum(dim=-1, keepdim=True)"))
# ---- exercise 3
m("m07_scale_by_d", 3, ("return scores / math.sqrt(d_k)", "return scores / d_k"))
m("m08_scale_precedence", 3, ("return scores / math.sqrt(d_k)", "return scores / d_k ** 1/2"))
m("m09_dk_wrong_axis", 3, ("    d_k = q.size(-1)\n    scores", "    d_k = q.size(-2)\n    scores"))
# ---- exercise 4
m("m10_mask_triu", 4, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))"))
m("m11_mask_strict", 4, ("return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))", "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)"))
m("m12_apply_inverted", 4, ('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill(mask, float("-inf"))'))
m("m13_apply_inplace", 4, ('return scores.masked_fill(~mask, float("-inf"))', 'return scores.masked_fill_(~mask, float("-inf"))'))
m("m14_apply_multiply", 4, ('return scores.masked_fill(~mask, float("-inf"))', 'return scores * mask'))
m("m15_pad_le", 4, ("real = positions < lengths[:, None]", "real = positions <= lengths[:, None]"))
m("m16_pad_axis", 4, ("return real[:, None, :]", "return real[:, :, None]"))
# ---- exercise 5
m("m17_softmax_unstable", 5, ("    x_max = x.amax(dim=dim, keepdim=True)  #", "    x_max = torch.zeros_like(x.amax(dim=dim, keepdim=True))  #"))
m("m18_softmax_sum_last", 5, ("total = e.sum(dim=dim, keepdim=True)", "total = e.sum(dim=-1, keepdim=True)"))
m("m19_softmax_no_guard", 5, ('    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)', '    pass'), ("return e / total.masked_fill(total == 0, 1.0)", "return e / total"))
m("m20_softmax_nan_to_num", 5, ('    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)', '    pass'), ("return e / total.masked_fill(total == 0, 1.0)", "return torch.nan_to_num(e / total, nan=0.0)"))
m("m21_sdpa_mask_after", 5, ('''        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)''', '''        pass
    weights = softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)'''))
m("m22_sdpa_no_scale", 5, ("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", "scores = q @ k.transpose(-2, -1)"))
m("m23_sdpa_dim_queries", 5, ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)"))
m("m24_sdpa_default_causal", 5, ("    if mask is not None:\n        scores = scores.masked_fill", "    if mask is None:\n        mask = torch.tril(torch.ones(q.size(-2), k.size(-2), dtype=torch.bool, device=q.device))\n    if mask is not None:\n        scores = scores.masked_fill"))
m("m25_two_unstable_and_dim", 5, ("    x_max = x.amax(dim=dim, keepdim=True)  #", "    x_max = torch.zeros_like(x.amax(dim=dim, keepdim=True))  #"), ("weights = softmax(scores, dim=-1)", "weights = softmax(scores, dim=-2)"))
# ---- exercise 6
m("m26_split_direct_view", 6, ("    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)", "    return x.reshape(B, n_heads, L, D // n_heads)"))
m("m27_split_strided", 6, ("    x = x.view(B, L, n_heads, D // n_heads)  # (B, L, H, d_head): each D-vector as H chunks\n    return x.transpose(1, 2)", "    x = x.view(B, L, D // n_heads, n_heads)\n    return x.permute(0, 3, 1, 2)"))
m("m28_merge_no_transpose", 6, ("    x = x.transpose(1, 2).contiguous()  #", "    x = x.contiguous()  #"))
m("m29_merge_view_noncontig", 6, ("    x = x.transpose(1, 2).contiguous()  #", "    x = x.transpose(1, 2)  #"))
m("m30_mha_no_causal", 6, ("        if mask is None:\n            mask = causal_mask(L, x.device)", "        pass"))
m("m31_mha_mask_combined", 6, ("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)", "        if mask is None:\n            mask = causal_mask(L, x.device)\n        else:\n            mask = mask & causal_mask(L, x.device)"))
m("m32_mha_qkv_chunk_heads", 6, ("q, k, v = self.qkv(x).split(D, dim=-1)", "q, k, v = self.qkv(x).view(B, L, D, 3).unbind(-1)"))
# ---- exercise 7
m("m33_repeat_tiled", 7, ("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat(1, n_rep, 1, 1)"))
m("m34_repeat_wrong_dim", 7, ("return x.repeat_interleave(n_rep, dim=1)", "return x.repeat_interleave(n_rep, dim=2)"))
m("m35_gqa_rep_factor", 7, ("rep = self.n_heads // self.n_kv_heads", "rep = self.n_kv_heads"))
m("m36_gqa_full_kv_proj", 7, ("self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)", "self.k_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)"), ("self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)", "self.v_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)"), ("k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head)", "k = self.k_proj(x).view(B, L, self.n_heads, self.d_head)"), ("v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head)", "v = self.v_proj(x).view(B, L, self.n_heads, self.d_head)"), ("rep = self.n_heads // self.n_kv_heads", "rep = 1"))
m("m37_gqa_merge_reshape", 7, ("y = y.transpose(1, 2).contiguous().view(B, L, -1)", "y = y.reshape(B, L, -1)"))
m("m38_gqa_float32", 7, ("y, _ = scaled_dot_product_attention(q, k, v, mask)", "y, _ = scaled_dot_product_attention(q.float(), k.float(), v.float(), mask)\n        y = y.to(x.dtype)"))
m("m39_gqa_no_causal", 7, ("        if mask is None:\n            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)\n", ""))
# ---- exercise 8
m("m40_bytes_no_2", 8, ("return 2 * n_layers * n_kv_heads", "return n_layers * n_kv_heads"))
m("m41_cache_overwrite", 8, ("self.k[:, :, start:end] = k", "self.k[:, :, :k.size(2)] = k"), ("self.v[:, :, start:end] = v", "self.v[:, :, :v.size(2)] = v"))
m("m42_cache_returns_new_only", 8, ("return self.k[:, :, :end], self.v[:, :, :end]", "return self.k[:, :, start:end], self.v[:, :, start:end]"))
m("m43_cache_check_late", 8, ("        if end > self.max_len:\n            raise ValueError(f\"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}\")\n        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n        self.length = end",
    "        self.length = end\n        if end > self.max_len:\n            raise ValueError(f\"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}\")\n        self.k[:, :, start:end] = k\n        self.v[:, :, start:end] = v"))
m("m44_cache_reset_realloc", 8, ("        self.length = 0\n        # END SOLUTION\n\n    def update", "        self.length = 0\n        self.k = torch.zeros_like(self.k)\n        self.v = torch.zeros_like(self.v)\n        # END SOLUTION\n\n    def update"))
m("m45_cached_mask_no_offset", 8, ("mask = mask.tril(diagonal=past)", "mask = mask.tril()"))
m("m46_cached_past_after_update", 8, ("        past = 0 if cache is None else len(cache)  # tokens already cached\n        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)",
    "        if cache is not None:\n            k, v = cache.update(k, v)\n        past = 0 if cache is None else len(cache)"), ("mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)", "mask = torch.ones(T_new, k.size(2), dtype=torch.bool, device=x.device)"))
m("m47_cached_repeat_before_cache", 8, ("        if cache is not None:\n            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)\n        rep = self.n_heads // self.n_kv_heads\n        k = repeat_kv(k, rep)  # (B, H, past + T_new, dh)\n        v = repeat_kv(v, rep)  # (B, H, past + T_new, dh)",
    "        rep = self.n_heads // self.n_kv_heads\n        k = repeat_kv(k, rep)\n        v = repeat_kv(v, rep)\n        if cache is not None:\n            k, v = cache.update(k, v)"))
# ---- exercise 9
m("m48_prev_superdiag", 9, ("below = pattern.diagonal(offset=-1,", "below = pattern.diagonal(offset=1,"))
m("m49_induction_keep_first", 9, ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))"))
m("m50_induction_same_token", 9, ("stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)", "stripe = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)"), ("return stripe[..., 1:].mean(dim=(0, 2))", "return stripe.mean(dim=(0, 2))"))
m("m51_repeat_dim0", 9, ("return torch.cat([first, first], dim=1)", "return torch.cat([first, first], dim=0)"))
# ---- exercise 10
m("m52_cost_core_half", 10, ('"core_attention": 4 * L * L * d_model', '"core_attention": 2 * L * L * d_model'))
m("m53_crossover_sqrt", 10, ("return 6 * d_model", "return int(math.sqrt(6) * d_model)"))
m("m54_online_no_rescale", 10, ("l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)", "l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)"))
m("m55_online_no_inf_guard", 10, ('        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., 1) nothing finite yet: shift by 0', '        shift = m_new'), ('    shift = m.masked_fill(m == float("-inf"), 0.0)  # (..., 1)', '    shift = m'))
m("m56_tiled_o_not_rescaled", 10, ("o = o * rescale + p @ v_block", "o = o + p @ v_block"))
m("m57_tiled_causal_no_offset", 10, ("position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]", "position = torch.arange(L_q, device=q.device)[:, None]"))
m("m58_tiled_full_scores", 10, ("    for start in range(0, L_k, block_size):\n        k_block = k[..., start:start + block_size, :]  # (..., b, d_k) the last block may be shorter\n        v_block = v[..., start:start + block_size, :]  # (..., b, d_v)\n        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, b) one block of scores",
    "    S = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n    for start in range(0, L_k, block_size):\n        k_block = k[..., start:start + block_size, :]\n        v_block = v[..., start:start + block_size, :]\n        s = S[..., start:start + block_size]"))
m("m59_tiled_causal_ge", 10, ("s = s.masked_fill(key > position, float(\"-inf\"))", "s = s.masked_fill(key >= position, float(\"-inf\"))"))
m("m60_tiled_two_noscale_norescale_l", 10, ("s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))", "s = q @ k_block.transpose(-2, -1)"), ("l = l * rescale + p.sum(dim=-1, keepdim=True)", "l = l + p.sum(dim=-1, keepdim=True)"))

DROP={"m22_sdpa_no_scale","m18_softmax_sum_last","m29_merge_view_noncontig","m34_repeat_wrong_dim","m44_cache_reset_realloc","m50_induction_same_token","m52_cost_core_half","m53_crossover_sqrt","m13_apply_inplace","m47_cached_repeat_before_cache"}
M=[t for t in M if t[0] not in DROP]
for name, ex, edits in M:
    src = open(os.path.join(SOL, F[ex])).read()
    for old, new in edits:
        n = src.count(old)
        assert n == 1, (name, old, n)
        src = src.replace(old, new)
    # strip solution markers so it looks like a student's file
    src = "\n".join(l for l in src.split("\n") if not re.match(r"\s*# (BEGIN SOLUTION|END SOLUTION|HINT:)", l)) 
    d = os.path.join(OUT, name, "sub"); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, F[ex]), "w").write(src)
    open(os.path.join(OUT, name, "exercise"), "w").write(f"exercise{ex}\n")
print(len(M))
