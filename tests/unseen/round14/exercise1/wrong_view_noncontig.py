# lumen-unseen: exercise=1 kind=wrong
# mistake: flattens x with .view(-1, d_model) before the product, which fails for an x laid out in memory in another order (a transposed batch)
# expect: view|contiguous|transpos|layout|memory|stride|reshape
import torch


def _flat_mm(x, w):
    y = x.view(-1, x.shape[-1]) @ w
    return y.view(*x.shape[:-1], w.shape[-1])


def project(x, w_q, w_k, w_v):
    return _flat_mm(x, w_q), _flat_mm(x, w_k), _flat_mm(x, w_v)


def fused_project(x, w_qkv):
    q, k, v = _flat_mm(x, w_qkv).split(w_qkv.shape[-1] // 3, dim=-1)
    return q, k, v
