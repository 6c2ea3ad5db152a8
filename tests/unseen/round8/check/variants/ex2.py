DEFAULT = {
    "attention_scores": """
        return q @ k.transpose(-2, -1)
    """,
}

VARIANTS = [
    dict(kind="wrong", name="dot_T_all_dims",
         mistake="uses k.T, which reverses ALL dims of a batched tensor instead of swapping the last two",
         ideal="k.T reverses every dimension, so it is only K transposed for a 2-D k; with batch or head dims in front, (B, L_k, d) becomes (d, L_k, B) and the product fails or mixes batches; use k.transpose(-2, -1) or k.mT.",
         expect=[r"\.T\b|reverses", r"batch|leading|dims|2-D"],
         bodies={"attention_scores": """
        return q @ k.T
    """}),
    dict(kind="wrong", name="transpose_positive_dims",
         mistake="swaps dims 1 and 2 of k (k.transpose(1, 2)), which is right only for 3-D (batch, L_k, d_k) input",
         ideal="k.transpose(1, 2) names the dims from the front, so it is the last two only for exactly 3-D input; unbatched keys fail and (B, H, L_k, d_k) swaps heads with tokens; negative dims (-2, -1) work for any leading dims.",
         expect=[r"transpose\(1, ?2\)|positive|from the front|negative", r"batch|leading|dims|3-D|unbatched"],
         bodies={"attention_scores": """
        return torch.matmul(q, k.transpose(1, 2))
    """}),
    dict(kind="wrong", name="keys_times_queries",
         mistake="computes K Q^T instead of Q K^T, so rows are keys and columns queries (silently, when L_q == L_k)",
         ideal="The product is k @ q^T, i.e. S transposed: S[i, j] holds q_j · k_i, with shape (L_k, L_q); it only looks right when L_q == L_k, and then every row belongs to a key instead of a query.",
         expect=[r"k @ q|K Q|transposed|swapp|order", r"L_q|L_k|row|query|queries"],
         bodies={"attention_scores": """
        return (k @ q.transpose(-2, -1)).contiguous()
    """}),
    dict(kind="wrong", name="reshape_instead_of_transpose",
         mistake="'transposes' k with reshape to (..., d_k, L_k), which reorders the memory instead of swapping the axes",
         ideal="k.reshape(..., d_k, L_k) keeps the numbers in memory order and just regroups them, it is not a transpose; the product then pairs query entries with the wrong key entries (right only when L_k or d_k is 1); use k.transpose(-2, -1).",
         expect=[r"reshape|view", r"transpos|regroup|memory order|axes"],
         bodies={"attention_scores": """
        kt = k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2])
        return q @ kt
    """}),
    dict(kind="wrong", name="scaled_too_early",
         mistake="already divides the scores by sqrt(d_k), which the docstring says is exercise 3's job",
         ideal="The function divides by √d_k, but it must return the raw scores S = Q Kᵀ (not scaled yet); its values are off by a factor √d_k (right only when d_k = 1).",
         expect=[r"√d_k|sqrt|scal", r"raw|not scaled|factor"],
         bodies={"attention_scores": """
        return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5
    """}),
    dict(kind="wrong", name="empty_default_dtype",
         mistake="fills a torch.empty result made without dtype or device, so it is float32 on the CPU whatever q is",
         ideal="The result comes from torch.empty(...) with no dtype= or device=, i.e. the default float32 on the CPU; float64 scores lose precision and come back float32, fp16/bf16 come back float32, and GPU inputs give CPU scores; pass dtype=q.dtype, device=q.device (or use q @ kᵀ).",
         expect=[r"torch\.empty|default", r"dtype|float32|device"],
         bodies={"attention_scores": """
        L_q, L_k = q.shape[-2], k.shape[-2]
        out = torch.empty(*q.shape[:-2], L_q, L_k)
        for i in range(L_q):
            out[..., i, :] = (q[..., i : i + 1, :] * k).sum(-1)
        return out
    """}),
    dict(kind="wrong", name="transpose_inplace",
         mistake="transposes k in place with k.transpose_(-2, -1), so the caller's k comes back transposed",
         ideal="k.transpose_ is an in-place op on the input: after the call the caller's k has shape (..., d_k, L_k), so the input is not left unchanged (and a second call breaks); use the out-of-place k.transpose(-2, -1).",
         expect=[r"transpose_|in[- ]place", r"input|caller|unchanged"],
         bodies={"attention_scores": """
        return q @ k.transpose_(-2, -1)
    """}),
    dict(kind="wrong", name="numpy_roundtrip",
         mistake="computes the product in NumPy (q.detach().numpy()) and converts back with torch.from_numpy",
         ideal="Going through NumPy detaches the result from autograd (no gradient reaches q or k), forces the CPU, and fails for bfloat16, which NumPy lacks; stay in torch with q @ k.transpose(-2, -1).",
         expect=[r"numpy", r"gradient|autograd|detach|device|bfloat16"],
         bodies={"attention_scores": """
        import numpy as np
        s = np.matmul(q.detach().cpu().numpy(), np.swapaxes(k.detach().cpu().numpy(), -1, -2))
        return torch.from_numpy(s)
    """}),
    dict(kind="honest", name="einsum_subscripts",
         method="torch.einsum('...id,...jd->...ij'): a dot product per (query, key) pair, no explicit transpose",
         bodies={"attention_scores": """
        return torch.einsum("...id,...jd->...ij", q, k)
    """}),
    dict(kind="honest", name="transposed_product",
         method="computes (K Q^T)^T: one batched matmul of the keys against the queries, then swaps the last two dims of the result",
         bodies={"attention_scores": """
        return torch.matmul(k, q.mT).mT
    """}),
]
