"""Exercise 10 — tiled attention keeping the output normalised after every block.

Instead of carrying the unnormalised sum o and dividing once at the end, this version carries
the attention output of the keys seen so far, out = o / l, and renormalises it when a block
arrives (the FlashAttention-1 formulation):

    l_new = e^(m - m_new) l + Σ e^(s_b - m_new)
    out   = (e^(m - m_new) l · out + e^(s_b - m_new) @ v_b) / l_new

Both give the same result; this one never holds an unnormalised sum.
"""

import math

import torch


def attention_cost(L, d_model):
    flops_per_madd = 2
    return {
        "core_attention": flops_per_madd * 2 * L * L * d_model,
        "projections": flops_per_madd * 4 * L * d_model ** 2,
        "feed_forward": flops_per_madd * 2 * L * d_model * (4 * d_model),
    }


def crossover_length(d_model):
    return 6 * d_model


def _shift(m):
    return m.masked_fill(torch.isneginf(m), 0.0)


def _nonzero(l):
    return l.masked_fill(l == 0, 1.0)


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], -math.inf)   # (..., 1)
    l = torch.zeros_like(x[..., :1])
    n = x.shape[-1]
    for j in range(0, n, block_size):
        blk = x[..., j:j + block_size]
        m_new = torch.maximum(m, blk.amax(-1, keepdim=True))
        l = torch.exp(m - _shift(m_new)) * l + torch.exp(blk - _shift(m_new)).sum(-1, keepdim=True)
        m = m_new
    return torch.exp(x - _shift(m)) / _nonzero(l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    inv_sqrt_d = 1.0 / math.sqrt(q.shape[-1])
    m = torch.full_like(q[..., :1], -math.inf)                 # (..., L_q, 1)
    l = torch.zeros_like(q[..., :1])                           # (..., L_q, 1)
    out = q.new_zeros(q.shape[:-1] + v.shape[-1:])             # (..., L_q, d_v)
    q_pos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)

    for j in range(0, L_k, block_size):
        kb, vb = k[..., j:j + block_size, :], v[..., j:j + block_size, :]
        s = q @ kb.transpose(-2, -1) * inv_sqrt_d
        if causal:
            k_pos = torch.arange(j, j + kb.shape[-2], device=q.device)[None, :]
            s = s.masked_fill(k_pos > q_pos, -math.inf)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        p = torch.exp(s - _shift(m_new))
        old = torch.exp(m - _shift(m_new)) * l                 # the old sum, on the new scale
        l_new = old + p.sum(-1, keepdim=True)
        out = (old * out + p @ vb) / _nonzero(l_new)
        m, l = m_new, l_new
    return out
