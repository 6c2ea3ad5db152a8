"""Exercise 10, rescaling the running denominator when the max grows but not the running output.

Diagnosis: online-output-not-rescaled.
"""

import math

import torch


def attention_cost(L, d_model):
    d = d_model
    return {"core_attention": 2 * (2 * L * L * d), "projections": 4 * (2 * L * d * d),
            "feed_forward": 2 * (2 * L * d * 4 * d)}


def crossover_length(d_model):
    return 24 * d_model ** 2 // (4 * d_model)


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf"))
    total = torch.zeros_like(m)
    start = 0
    while start < x.size(-1):
        block = x[..., start:start + block_size]
        m_next = torch.maximum(m, block.amax(-1, keepdim=True))
        shift = torch.nan_to_num(m_next, neginf=0.0)
        total = total * torch.exp(m - shift) + torch.exp(block - shift).sum(-1, keepdim=True)
        m = m_next
        start += block_size
    shift = torch.nan_to_num(m, neginf=0.0)
    return torch.exp(x - shift) / total.clamp_min(1e-300 if x.dtype == torch.float64 else 1e-30)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    out = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    query_pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    start = 0
    while start < L_k:
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        scores = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key_pos = torch.arange(start, start + kb.size(-2), device=q.device)
            scores = scores.masked_fill(key_pos > query_pos, float("-inf"))
        m_next = torch.maximum(m, scores.amax(-1, keepdim=True))
        shift = torch.nan_to_num(m_next, neginf=0.0)
        weights = torch.exp(scores - shift)
        l = l * torch.exp(m - shift) + weights.sum(-1, keepdim=True)
        out = out + weights @ vb
        m = m_next
        start += block_size
    return out / torch.where(l > 0, l, torch.ones_like(l))
