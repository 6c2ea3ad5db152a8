# lumen-unseen: exercise=1 kind=wrong
# mistake: fused_project cuts the 3d columns as interleaved (view(..., d, 3)) instead of three contiguous blocks
# expect: interleav|contiguous|side by side|columns|split|block|\[W_Q \| W_K \| W_V\]
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    y = x @ w_qkv
    d = y.shape[-1] // 3
    q, k, v = y.unflatten(-1, (d, 3)).unbind(-1)
    return q, k, v
