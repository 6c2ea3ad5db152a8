"""Exercise 10, correct but not tiled: tiled_attention builds the whole (L_q, L_k) matrix of scores
and ignores block_size (online_softmax is honest). Every test of the values passes; the memory
test fails (its largest tensor grows like L²), and so does the tier's memory verdict."""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _shift(m):
    return m.masked_fill(m == float("-inf"), 0.0)


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(-1, keepdim=True))
        l = l * torch.exp(m - _shift(m_new)) + torch.exp(block - _shift(m_new)).sum(-1, keepdim=True)
        m = m_new
    return torch.exp(x - _shift(m)) / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k): all of it at once
    if causal:
        mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril(diagonal=L_k - L_q)
        scores = scores.masked_fill(~mask, float("-inf"))
    m = _shift(scores.amax(-1, keepdim=True))
    e = torch.exp(scores - m)
    total = e.sum(-1, keepdim=True)
    return (e / total.masked_fill(total == 0, 1.0)) @ v
