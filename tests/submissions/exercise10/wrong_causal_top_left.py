"""Exercise 10 with the usual square causal mask, query i sees keys 0..i, even when there are
fewer queries than keys (where they are the last positions, as in the KV cache).

Diagnosis: tiled-causal-top-left.
"""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _safe(m):
    return m.masked_fill(m == float("-inf"), 0.0)


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(-1, keepdim=True))
        l = l * torch.exp(m - _safe(m_new)) + torch.exp(block - _safe(m_new)).sum(-1, keepdim=True)
        m = m_new
    return torch.exp(x - _safe(m)) / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    for start in range(0, L_k, block_size):
        end = min(start + block_size, L_k)
        s = q @ k[..., start:end, :].transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril()[:, start:end]
            s = s.masked_fill(~mask, float("-inf"))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - _safe(m_new))
        alpha = torch.exp(m - _safe(m_new))
        l = l * alpha + p.sum(-1, keepdim=True)
        o = o * alpha + p @ v[..., start:end, :]
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)
