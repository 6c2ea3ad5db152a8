"""Exercise 10 as memory-efficient attention ports often write it (lucidrains' flash and
memory-efficient attention keep such guards): each block's sum clamped to at least 1e-10 and the
output divided by l + 1e-8, "to be safe". A query that sees no key is already guarded (its l is 0
and is divided by 1), so the epsilons only move every output by about 1e-8 / l: far below float32's
tolerance, far above float64's. Nothing here computes in float32; with CLAMP and EPS at 0 the same
code is exact (tests/catalog/test_suite_exercise10.py grades it so).

Diagnosis: epsilon-in-divisor.
"""

import math

import torch

CLAMP, EPS = 1e-10, 1e-8


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
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
        shift = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = torch.where(m == float("-inf"), torch.zeros_like(m), m)
    return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    scale = q.size(-1) ** -0.5
    L_q, L_k = q.size(-2), k.size(-2)
    row_max = torch.full_like(q[..., :1], float("-inf"))
    row_sum = torch.zeros_like(row_max)
    out = torch.zeros_like(q[..., :1]) * v[..., :1, :]
    query_at = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kc, vc = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        scores = (q * scale) @ kc.transpose(-2, -1)
        if causal:
            key_at = torch.arange(start, start + kc.size(-2), device=q.device)
            scores = scores.masked_fill(key_at > query_at, float("-inf"))
        new_max = torch.maximum(row_max, scores.amax(dim=-1, keepdim=True))
        shift = torch.where(new_max == float("-inf"), torch.zeros_like(new_max), new_max)
        weights = torch.exp(scores - shift)
        block_sum = weights.sum(dim=-1, keepdim=True).clamp(min=CLAMP)
        decay = torch.exp(row_max - shift)
        row_sum = row_sum * decay + block_sum
        out = out * decay + weights @ vc
        row_max = new_max
    return out / torch.where(row_sum == 0, torch.ones_like(row_sum), row_sum + EPS)
