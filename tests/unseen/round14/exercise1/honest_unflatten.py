# lumen-unseen: exercise=1 kind=honest
# method: torch.matmul; fused = one matmul, unflatten last dim to (3, d) and unbind
import torch


def project(x, w_q, w_k, w_v):
    return tuple(torch.matmul(x, w) for w in (w_q, w_k, w_v))


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    y = torch.matmul(x, w_qkv)                 # (..., L, 3d), one product
    parts = y.unflatten(-1, (3, d)).unbind(-2)  # [W_Q | W_K | W_V] blocks of d columns
    return parts[0], parts[1], parts[2]
