# lumen-unseen: exercise=1 kind=honest
# method: helper _lin with @; fused = one @ and Tensor.narrow for each third
import torch


def _lin(x, w):
    return x @ w


def project(x, w_q, w_k, w_v):
    q = _lin(x, w_q)
    k = _lin(x, w_k)
    v = _lin(x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    out = _lin(x, w_qkv)
    d = out.size(-1) // 3
    return out.narrow(-1, 0, d), out.narrow(-1, d, d), out.narrow(-1, 2 * d, d)
