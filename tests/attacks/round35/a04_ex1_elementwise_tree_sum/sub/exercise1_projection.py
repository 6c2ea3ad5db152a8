"""Exercise 1, cheating: fused_project runs THREE products. q by a real `@` (the probe's one
product); k and v are products whose sum over d_model is a halving tree of elementwise `+`
(no reduction operator at all, so neither a product nor a reduction to the probe)."""

import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _hidden_product(x, w):
    t = x.unsqueeze(-1) * w  # (..., L, D, d): every term of x @ w
    n = t.size(-2)
    while n > 1:
        if n % 2:
            t = torch.cat([t, torch.zeros_like(t[..., :1, :])], dim=-2)
            n += 1
        t = t[..., : n // 2, :] + t[..., n // 2:, :]
        n //= 2
    return t.squeeze(-2)  # (..., L, d)


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    return x @ w_q, _hidden_product(x, w_k), _hidden_product(x, w_v)
