"""Exercise 1 — control for a01: the same three products, with no copy through Tensor.map_."""

import torch


def project(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    return q, k, v


class _Fused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_qkv):
        ctx.save_for_backward(x, w_qkv)
        d = w_qkv.size(-1) // 3
        q = x @ w_qkv[:, :d]
        k = (x.unsqueeze(-1) * w_qkv[:, d:2 * d]).sum(-2)
        v = (x.unsqueeze(-1) * w_qkv[:, 2 * d:]).sum(-2)
        out = torch.empty(*x.shape[:-1], 3 * d, dtype=x.dtype, device=x.device)
        out[..., :d] = q
        out[..., d:2 * d] = k
        out[..., 2 * d:] = v
        return out

    @staticmethod
    def backward(ctx, g):
        x, w_qkv = ctx.saved_tensors
        gx = g @ w_qkv.transpose(-2, -1)
        gw = (x.reshape(-1, x.size(-1)).transpose(0, 1) @ g.reshape(-1, g.size(-1)))
        return gx, gw


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q, k, v = _Fused.apply(x, w_qkv).split(d, dim=-1)
    return q, k, v
