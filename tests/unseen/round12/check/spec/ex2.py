STUB = "exercise2_scoring.py"

FILES = [
    dict(name="wrong_dot_T_batched", kind="wrong",
         mistake="uses k.T, which on a batched (3-D/4-D) k reverses ALL dims instead of swapping the last two: fine for 2-D inputs, a shape error (or garbage) with batch/head dims",
         ideal="attention_scores: Tensor.T reverses every dim of a batched tensor; swap only the last two with k.transpose(-2, -1) (or k.mT) so batch and head dims stay in front",
         expect=r"\.T\b|transpose\(-2, ?-1\)|\.mT|batch|leading|last two",
         reject=[r"dtype|device|\bscale\b|√|sqrt|in-?place"],
         bodies=["""
return q @ k.T
"""]),
    dict(name="wrong_keys_times_queries", kind="wrong",
         mistake="computes K Q^T (k @ q.transpose(-2, -1)) instead of Q K^T: the result is transposed, (L_k, L_q) with rows = keys",
         ideal="attention_scores: row i must be query i's scores, S = Q K^T of shape (L_q, L_k); k @ q^T gives its transpose (L_k, L_q)",
         expect=r"transpos|K ?Q|Q ?K|\(L_q, L_k\)|rows?|order|shape",
         reject=[r"dtype|device|\bscale\b|√|sqrt|in-?place|batch"],
         bodies=["""
return k @ q.transpose(-2, -1)
"""]),
    dict(name="wrong_transpose_dims_0_1", kind="wrong",
         mistake="transposes k with k.transpose(0, 1) (the first two dims): right for 2-D inputs, wrong with any leading batch or head dims",
         ideal="attention_scores: transpose(0, 1) swaps the batch and token axes once there are leading dims; use k.transpose(-2, -1) so only the last two dims swap",
         expect=r"transpose\(0, ?1\)|transpose\(-2, ?-1\)|negative|batch|leading|last two",
         reject=[r"dtype|device|\bscale\b|√|sqrt|in-?place"],
         bodies=["""
return q @ k.transpose(0, 1)
"""]),
    dict(name="wrong_scaled_too_early", kind="wrong",
         mistake="divides the raw scores by sqrt(d_k) already, though this function must return the unscaled Q K^T (scaling is exercise 3)",
         ideal="attention_scores: return the raw dot products Q K^T; the division by √d_k belongs to exercise 3, so your scores are √d_k too small",
         expect=r"scal|√|sqrt|raw|too small|factor",
         reject=[r"dtype|device|transpos|in-?place|batch"],
         helpers="""
import math
""",
         bodies=["""
return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
"""]),
    dict(name="wrong_bmm_3d_only", kind="wrong",
         mistake="uses torch.bmm(q, k.transpose(1, 2)), which only accepts 3-D tensors: raises for unbatched 2-D inputs and for 4-D (batch, heads) inputs",
         ideal="attention_scores: torch.bmm needs exactly one batch dim; inputs may be 2-D or carry several leading dims (batch, heads), so use q @ k.transpose(-2, -1)",
         expect=r"bmm|3-?d|batch|leading|2-?d|4-?d|dims",
         reject=[r"dtype|device|\bscale\b|√|sqrt|in-?place"],
         bodies=["""
return torch.bmm(q, k.transpose(1, 2))
"""]),
    dict(name="wrong_elementwise_pairs", kind="wrong",
         mistake="computes (q * k).sum(-1): the dot product of query i with key i only (the diagonal), not of every query with every key; shape (..., L) instead of (..., L_q, L_k)",
         ideal="attention_scores: every query must be scored against every key, an (L_q, L_k) matrix; (q * k).sum(-1) only pairs query i with key i",
         expect=r"every (query|key)|all (pairs|keys)|diagonal|\(L_q, L_k\)|shape|matrix product|outer",
         reject=[r"dtype|device|\bscale\b|√|sqrt|in-?place"],
         bodies=["""
return (q * k).sum(dim=-1)
"""]),
    dict(name="wrong_zeros_default_dtype", kind="wrong",
         mistake="fills the scores one key at a time into torch.zeros(...) made without dtype=/device=, so the result is always float32 on the CPU (float64 loses precision, float16 comes back float32, GPU inputs fail)",
         ideal="attention_scores: the output buffer is created with the default dtype and device; pass dtype=q.dtype, device=q.device (or avoid the buffer: q @ k.transpose(-2, -1))",
         expect=r"dtype|device|float32|float64|torch\.zeros",
         reject=[r"\bscale\b|√|sqrt|in-?place|wrong shape|batch dims?"],
         bodies=["""
L_k = k.size(-2)
lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
scores = torch.zeros(*lead, q.size(-2), L_k)
for j in range(L_k):
    scores[..., j] = (q @ k[..., j, :].unsqueeze(-1)).squeeze(-1)
return scores
"""]),
    dict(name="wrong_inplace_transpose", kind="wrong",
         mistake="uses the in-place k.transpose_(-2, -1), which transposes the caller's k (and raises on a k that requires grad)",
         ideal="attention_scores: transpose_ changes k itself (the caller's keys come back transposed) and fails on a leaf that requires grad; use the out-of-place k.transpose(-2, -1)",
         expect=r"in-?place|transpose_|modif|chang|mutat|leaf",
         reject=[r"dtype|device|\bscale\b|√|sqrt"],
         bodies=["""
return q @ k.transpose_(-2, -1)
"""]),
    dict(name="honest_einsum", kind="honest",
         method="torch.einsum('...qd,...kd->...qk') with broadcasting leading dims",
         bodies=["""
return torch.einsum("...qd,...kd->...qk", q, k)
"""]),
    dict(name="honest_column_loop", kind="honest",
         method="explicit loop over the keys: each column of S is q times one key (a matrix-vector product), then torch.cat along the last axis",
         bodies=["""
columns = []
for j in range(k.shape[-2]):
    key_j = k[..., j, :].unsqueeze(-1)  # (..., d_k, 1)
    columns.append(torch.matmul(q, key_j))  # (..., L_q, 1): q_i . k_j for every i
return torch.cat(columns, dim=-1)
"""]),
]
