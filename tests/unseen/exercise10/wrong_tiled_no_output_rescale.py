# lumen-unseen: exercise=10 kind=wrong
# mistake: tiled_attention rescales the running denominator but not the running output when the max grows (o += p @ v without o *= exp(m_old - m_new))
# expect: rescal|exp\(\s*m_?old\s*[-−]\s*m_?new|running output|accumulat
# reject: partial block|last block|causal|initiali[sz]
"""Exercise 10 — Tiled attention: attention without the L x L matrix.

Chapter section: "The cost: attention is quadratic in sequence length".

The core of attention costs about 4·L²·d FLOPs (QKᵀ and A·V, 2·L²·d each) and L² numbers of memory
per head for the scores; the four projections cost 8·L·d² and the feed-forward block 16·L·d². The
crossover, 4L²d = 24Ld², is at L = 6d.

FlashAttention never stores the (L, L) matrix: it walks over blocks of keys and values keeping, for
every query, a running maximum m, a running denominator l and a running output o, rescaling l and o
by exp(m_old - m_new) whenever the maximum grows.

Off limits: the softmax family (torch.softmax, F.softmax, log_softmax, Tensor.softmax, ...) and
torch's fused attention (F.scaled_dot_product_attention, nn.MultiheadAttention).
"""

import math

import torch


def attention_cost(L, d_model):
    """FLOPs of one layer's parts for a sequence of L tokens (2 FLOPs per multiply-add)."""
    return {
        "attention": 4 * L * L * d_model,  # QKᵀ and A·V: 2·L²·d each
        "projections": 8 * L * d_model * d_model,  # W_Q, W_K, W_V, W_O: 2·L·d² each
        "feed_forward": 16 * L * d_model * d_model,  # d -> 4d -> d: 2·L·d·4d twice
    }


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return 6 * d_model


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    n = x.size(-1)
    m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)  # running max
    s = torch.zeros_like(m)  # running sum of exp(x - m)
    for start in range(0, n, block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
        shift = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)  # all -inf so far
        s = s * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = torch.where(m == float("-inf"), torch.zeros_like(m), m)
    return torch.exp(x - shift) / torch.where(s == 0, torch.ones_like(s), s)


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.size(-2), k.size(-2)
    scale = 1.0 / math.sqrt(q.size(-1))
    m = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)  # (..., L_q, 1)
    l = torch.zeros_like(m)  # running denominator
    o = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)  # running output
    rows = torch.arange(L_q, device=q.device).unsqueeze(-1)  # (L_q, 1)
    for start in range(0, L_k, block_size):
        k_blk = k[..., start:start + block_size, :]
        v_blk = v[..., start:start + block_size, :]
        s = (q @ k_blk.transpose(-2, -1)) * scale  # (..., L_q, b)
        if causal:
            cols = torch.arange(start, start + k_blk.size(-2), device=q.device)
            s = s.masked_fill(cols > rows, float("-inf"))  # query i reads keys 0..i
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(m - shift)  # how much the old max overstated: rescale the old sums
        p = torch.exp(s - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o + p @ v_blk
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)  # a row that saw no key: zeros
