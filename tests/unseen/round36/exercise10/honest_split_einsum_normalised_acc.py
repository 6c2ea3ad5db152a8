"""Exercise 10 — Attention without the L×L matrix.

FlashAttention-1 style: the running output is kept NORMALISED (o = Σ e^(s-m) v / l after every
block) instead of dividing once at the end. Keys and values are cut with torch.split, products
use einsum, and the causal mask is a bool block built from one position offset. online_softmax
uses torch.split too, and updates its running sum with in-place ops on tensors it owns.
"""

import math

import torch


def attention_cost(L: int, d_model: int) -> dict:
    core = 2 * (2 * L * L * d_model)  # Q Kᵀ and A V, L·L·d multiply-adds each
    proj = 4 * (2 * L * d_model * d_model)  # W_Q, W_K, W_V, W_O
    ffn = 2 * (2 * L * d_model * 4 * d_model)  # d -> 4d -> d
    return {"core_attention": core, "projections": proj, "feed_forward": ffn}


def crossover_length(d_model: int) -> int:
    # 4 L² d = 24 L d²  <=>  L = 24 d² / (4 d) = 6 d; integer division is exact here
    return (24 * d_model * d_model) // (4 * d_model)


def online_softmax(x: torch.Tensor, block_size: int) -> torch.Tensor:
    stat_shape = (*x.shape[:-1], 1)
    m = x.new_full(stat_shape, float("-inf"))
    l = x.new_zeros(stat_shape)
    # torch.split of an empty dim yields one empty block: skip it (amax refuses an empty dim)
    for blk in (b for b in torch.split(x, block_size, dim=-1) if b.shape[-1]):
        m_new = torch.maximum(m, blk.amax(-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        # l is a fresh tensor from the previous iteration (or zeros): scaling it in place is safe
        l = l.mul_(torch.exp(m - shift)).add_(torch.exp(blk - shift).sum(-1, keepdim=True))
        m = m_new
    shift = m.masked_fill(m == float("-inf"), 0.0)
    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    offset = L_k - L_q  # query i sits at position offset + i
    stat = (*q.shape[:-2], L_q, 1)
    m = q.new_full(stat, float("-inf"))
    l = q.new_zeros(stat)
    out = q.new_zeros((*q.shape[:-2], L_q, v.shape[-1]))  # normalised running output
    rows = torch.arange(L_q, device=q.device).unsqueeze(-1) + offset  # (L_q, 1)
    start = 0
    for kb, vb in zip(torch.split(k, block_size, dim=-2), torch.split(v, block_size, dim=-2)):
        if kb.shape[-2] == 0:  # L_k = 0: split yields one empty block; nothing to read
            continue
        s = torch.einsum("...id,...jd->...ij", q, kb) * scale
        if causal:
            cols = torch.arange(start, start + kb.shape[-2], device=q.device).unsqueeze(0)  # (1, b)
            s = s.masked_fill(cols > rows, float("-inf"))
        start += kb.shape[-2]
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        shift = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l_new = l * alpha + p.sum(-1, keepdim=True)
        l_div = torch.where(l_new == 0, torch.ones_like(l_new), l_new)
        # out was Σ_old e^(s-m) v / l; re-weight it to the new max and the new total
        out = (out * (l * alpha) + torch.einsum("...ij,...jd->...id", p, vb)) / l_div
        l, m = l_new, m_new
    return out
