# lumen-unseen: exercise=1 kind=honest
# method: flattens the leading dims into one 2-D (N, d_model) matrix (reshape, which copies a transposed x), one mm per weight, reshapes back; fused = one mm then split(d)
import torch


def _rows(x):
    return x.reshape(-1, x.shape[-1])


def _back(y, x):
    return y.reshape(*x.shape[:-1], y.shape[-1])


def project(x, w_q, w_k, w_v):
    x2 = _rows(x)
    return _back(torch.mm(x2, w_q), x), _back(torch.mm(x2, w_k), x), _back(torch.mm(x2, w_v), x)


def fused_project(x, w_qkv):
    y = _back(torch.mm(_rows(x), w_qkv), x)
    q, k, v = y.split(w_qkv.shape[1] // 3, dim=-1)
    return q, k, v
