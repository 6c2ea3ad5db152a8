"""Exercise 10 whose causal mask also hides each query's own key (key position >= query position).

Diagnosis: tiled-causal-excludes-diagonal.
"""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(-1, keepdim=True))
        shift = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(-1, keepdim=True)
        m = m_new
    shift = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return torch.exp(x - shift) / torch.where(l > 0, l, torch.ones_like(l))


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    query_position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key_position = torch.arange(start, start + kb.size(-2), device=q.device)
            s = s.masked_fill(key_position >= query_position, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        shift = torch.where(torch.isfinite(m_new), m_new, torch.zeros_like(m_new))
        alpha = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * alpha + p.sum(-1, keepdim=True)
        o = o * alpha + p @ vb
        m = m_new
    return o / torch.where(l > 0, l, torch.ones_like(l))
