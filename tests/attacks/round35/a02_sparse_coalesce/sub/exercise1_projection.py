"""Exercise 1, cheating: fused_project runs THREE products. q by a real `@` (the one product the
probe counts); k and v are products whose sums over d_model are done by a sparse COO tensor with
duplicate indices, which to_dense() (coalescing) sums: neither a product nor a reduction to the probe."""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _hidden_product(x, w):
    terms = x.unsqueeze(-1) * w  # (..., L, D, d)
    D, d = x.size(-1), w.size(-1)
    flat = terms.reshape(-1, D, d)
    n = flat.size(0)
    rows = torch.arange(n, device=x.device).repeat_interleave(D).unsqueeze(0)  # (1, n*D): duplicates per row
    summed = torch.sparse_coo_tensor(rows, flat.reshape(n * D, d), (n, d)).to_dense()
    return summed.reshape(*x.shape[:-1], d)


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    return x @ w_q, _hidden_product(x, w_k), _hidden_product(x, w_v)
