"""Exercise 10, rescaling the running values by e^(m_new - m_old), the factor upside down: the
first block, where m_old = -inf, turns every running value into inf · 0 = NaN.

Diagnosis: online-rescale-inverted.
"""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _shift(m):
    return torch.where(m == -math.inf, torch.zeros_like(m), m)


def online_softmax(x, block_size):
    m = torch.full((*x.shape[:-1], 1), -math.inf, dtype=x.dtype, device=x.device)
    l = torch.zeros_like(m)
    for start in range(0, x.shape[-1], block_size):
        part = x[..., start:start + block_size]
        m_new = torch.maximum(m, part.amax(dim=-1, keepdim=True))
        l = l * torch.exp(_shift(m_new) - m) + torch.exp(part - _shift(m_new)).sum(dim=-1, keepdim=True)
        m = m_new
    return torch.exp(x - _shift(m)) / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    m = torch.full((*q.shape[:-1], 1), -math.inf, dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    out = torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device)
    where = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if causal:
            keys = torch.arange(start, start + kb.shape[-2], device=q.device)
            s = s.masked_fill(keys > where, -math.inf)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        grow = torch.exp(_shift(m_new) - m)
        p = torch.exp(s - _shift(m_new))
        l = l * grow + p.sum(dim=-1, keepdim=True)
        out = out * grow + p @ vb
        m = m_new
    return out / torch.where(l == 0, torch.ones_like(l), l)
