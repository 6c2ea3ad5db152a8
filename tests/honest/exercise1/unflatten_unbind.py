import torch


def project(x, w_q, w_k, w_v):
    # one product against the three matrices side by side, then cut at the right widths
    both = x @ torch.cat([w_q, w_k, w_v], dim=1)
    d_k = w_q.shape[1]
    return both[..., :d_k], both[..., d_k:2 * d_k], both[..., 2 * d_k:]


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    q, k, v = (x @ w_qkv).unflatten(-1, (3, d)).unbind(-2)
    return q, k, v
