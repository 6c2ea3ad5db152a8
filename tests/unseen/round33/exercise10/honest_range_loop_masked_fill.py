"""Exercise 10 — Attention without the L×L matrix (a `for start in range(0, L, block)` loop)."""

import math

import torch

NEG_INF = float("-inf")


def attention_cost(L, d_model):
    return {
        "core_attention": 4 * L * L * d_model,
        "projections": 8 * L * d_model * d_model,
        "feed_forward": 16 * L * d_model * d_model,
    }


def crossover_length(d_model):
    # 4 L^2 d = 24 L d^2  <=>  L = 6 d
    return 6 * d_model


def _safe(m):
    """The shift to use for a running max: 0 where nothing has been seen yet (m = -inf)."""
    return torch.where(torch.isneginf(m), torch.zeros_like(m), m)


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full(x.shape[:-1], NEG_INF, dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1], dtype=x.dtype, device=x.device)
    for start in range(0, n, block_size):
        xb = x[..., start:start + block_size]
        m_new = torch.maximum(m, xb.amax(dim=-1))
        shift = _safe(m_new)
        l = l * torch.exp(m - shift) + torch.exp(xb - shift.unsqueeze(-1)).sum(dim=-1)
        m = m_new
    shift = _safe(m)
    denom = torch.where(l == 0, torch.ones_like(l), l)
    return torch.exp(x - shift.unsqueeze(-1)) / denom.unsqueeze(-1)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, d_k = q.shape[-2], q.shape[-1]
    L_k = k.shape[-2]
    scale = 1.0 / math.sqrt(d_k)
    lead = q.shape[:-2]

    m = torch.full((*lead, L_q), NEG_INF, dtype=q.dtype, device=q.device)
    l = torch.zeros((*lead, L_q), dtype=q.dtype, device=q.device)
    o = torch.zeros((*lead, L_q, v.shape[-1]), dtype=q.dtype, device=q.device)

    q_pos = torch.arange(L_q, device=q.device) + (L_k - L_q)  # absolute position of each query

    for start in range(0, L_k, block_size):
        end = min(start + block_size, L_k)
        kb = k[..., start:end, :]
        vb = v[..., start:end, :]
        s = (q @ kb.transpose(-2, -1)) * scale  # (..., L_q, end - start)
        if causal:
            k_pos = torch.arange(start, end, device=q.device)
            hidden = k_pos[None, :] > q_pos[:, None]  # (L_q, end - start)
            s = s.masked_fill(hidden, NEG_INF)
        m_new = torch.maximum(m, s.amax(dim=-1))
        shift = _safe(m_new)
        alpha = torch.exp(m - shift)               # rescales what was summed so far
        p = torch.exp(s - shift.unsqueeze(-1))     # this block's e^(s - m_new)
        l = l * alpha + p.sum(dim=-1)
        o = o * alpha.unsqueeze(-1) + p @ vb
        m = m_new

    l = torch.where(l == 0, torch.ones_like(l), l)  # a query that saw no key: o = 0, return 0
    return o / l.unsqueeze(-1)
