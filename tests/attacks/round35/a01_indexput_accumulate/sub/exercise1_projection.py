"""Exercise 1, cheating: fused_project runs THREE products. q by a real `@` (the one product the
probe counts); k and v are products too, but their sums over d_model are done by index_put_ with
accumulate=True (a scatter-sum), which the probe counts neither as a product nor as a reduction."""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _hidden_product(x, w):
    # x (..., L, D), w (D, d): terms[..., l, j, c] = x[..., l, j] * w[j, c]; summed over j by index_put_
    terms = x.unsqueeze(-1) * w  # (..., L, D, d)
    D = x.size(-1)
    flat = terms.reshape(-1, D, w.size(-1))  # (N, D, d)
    n = flat.size(0)
    rows = torch.arange(n, device=x.device).repeat_interleave(D)  # each of the D terms goes to its row
    out = torch.zeros(n, w.size(-1), dtype=x.dtype, device=x.device)
    out = out.index_put((rows,), flat.reshape(n * D, -1), accumulate=True)
    return out.reshape(*x.shape[:-1], w.size(-1))


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    q = x @ w_q  # one counted product, of a third of w_qkv
    return q, _hidden_product(x, w_k), _hidden_product(x, w_v)
