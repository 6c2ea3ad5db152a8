# lumen-unseen: exercise=10 kind=wrong
# mistake: attention_cost counts multiply-adds, not FLOPs (forgets the factor 2): 2·L²·d, 4·L·d², 8·L·d²
# expect: FLOP|multiply-add|2 FLOPs|factor|twice|half
import math

import torch


def attention_cost(L, d_model):
    return {
        "core_attention": 2 * L * L * d_model,
        "projections": 4 * L * d_model * d_model,
        "feed_forward": 8 * L * d_model * d_model,
    }


def crossover_length(d_model):
    return 6 * d_model


def _finite_or_zero(m):
    return torch.where(m == float("-inf"), torch.zeros_like(m), m)


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
    for start in range(0, n, block_size):
        blk = x[..., start:start + block_size]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)
        l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = _finite_or_zero(m)
    return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    lead = q.shape[:-1]
    m = torch.full(lead + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    l = torch.zeros(lead + (1,), dtype=q.dtype, device=q.device)
    o = torch.zeros(lead + (v.shape[-1],), dtype=q.dtype, device=q.device)
    qpos = torch.arange(L_q, device=q.device).unsqueeze(-1) + (L_k - L_q)
    for start in range(0, L_k, block_size):
        kb = k[..., start:start + block_size, :]
        vb = v[..., start:start + block_size, :]
        s = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            kpos = torch.arange(start, start + kb.shape[-2], device=q.device).unsqueeze(0)
            s = s.masked_fill(kpos > qpos, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)
        alpha = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o * alpha + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)
