"""Exercise 10 — Attention without the L×L matrix.

Straight from the docstring: tiles over the keys only (all queries at once), running m, l, o,
torch.where guards applied BEFORE exp so no NaN is ever produced (a NaN in a discarded where
branch would still turn its gradient into NaN).
"""

import math

import torch


def attention_cost(L, d_model):
    """FLOPs of one layer (2 per multiply-add), as the chapter counts them."""
    return {
        "core_attention": 4 * L * L * d_model,
        "projections": 8 * L * d_model * d_model,
        "feed_forward": 16 * L * d_model * d_model,
    }


def crossover_length(d_model):
    """4·L²·d = 24·L·d²  =>  L = 6d."""
    return 6 * d_model


def _finite_or_zero(m):
    return torch.where(torch.isneginf(m), torch.zeros_like(m), m)


def online_softmax(x, block_size):
    """Softmax over the last axis, first pass block by block (running max and sum), then e^(x-m)/l."""
    n = x.shape[-1]
    m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
    for start in range(0, n, block_size):
        blk = x[..., start:start + block_size]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)
        l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
        m = m_new
    l = torch.where(l == 0, torch.ones_like(l), l)
    return torch.exp(x - _finite_or_zero(m)) / l


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d_k) V, reading block_size keys at a time; largest tensor (..., L_q, block)."""
    L_q, L_k = q.shape[-2], k.shape[-2]
    lead = q.shape[:-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    m = q.new_full(lead + (L_q, 1), float("-inf"))
    l = q.new_zeros(lead + (L_q, 1))
    o = q.new_zeros(lead + (L_q, v.shape[-1]))
    q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # absolute position of each query
    for start in range(0, L_k, block_size):
        kb = k[..., start:start + block_size, :]
        vb = v[..., start:start + block_size, :]
        s = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, <= block_size)
        if causal:
            k_pos = torch.arange(start, start + kb.shape[-2], device=q.device)
            s = s.masked_fill(k_pos[None, :] > q_pos[:, None], float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)  # a query that has seen nothing yet keeps shift 0
        alpha = torch.exp(m - shift)  # <= 1; 0 while m is still -inf
        p = torch.exp(s - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o * alpha + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)  # unseen queries: 0 / 1 = 0
