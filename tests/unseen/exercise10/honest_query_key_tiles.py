# lumen-unseen: exercise=10 kind=honest
# method: tiles both queries and keys (two loops), skipping key blocks that lie wholly in a causal query block's future; costs via a 2·m·n·k matmul helper
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

def _matmul_flops(m, n, k):
    """An (m, k) @ (k, n) product: m·n multiply-adds of length k, 2 FLOPs each."""
    return 2 * m * n * k


def attention_cost(L, d_model):
    """FLOPs of one layer's parts for a sequence of L tokens (2 FLOPs per multiply-add)."""
    d = d_model
    return {
        "attention": _matmul_flops(L, L, d) + _matmul_flops(L, d, L),
        "projections": 4 * _matmul_flops(L, d, d),
        "feed_forward": _matmul_flops(L, 4 * d, d) + _matmul_flops(L, d, 4 * d),
    }


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return 6 * d_model


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    neg_inf = float("-inf")
    m_old = torch.full_like(x[..., :1], neg_inf)
    total = torch.zeros_like(x[..., :1])
    start = 0
    while start < x.shape[-1]:
        chunk = x[..., start:start + block_size]
        m_new = torch.max(m_old, chunk.max(dim=-1, keepdim=True).values)
        ok = m_new > neg_inf
        correction = torch.where(ok, torch.exp(m_old - torch.where(ok, m_new, 0.0)), 0.0)
        total = total * correction + torch.where(ok, torch.exp(chunk - torch.where(ok, m_new, 0.0)), 0.0).sum(-1, keepdim=True)
        m_old = m_new
        start += block_size
    ok = m_old > neg_inf
    e = torch.where(ok, torch.exp(x - torch.where(ok, m_old, 0.0)), 0.0)
    return e / torch.where(total > 0, total, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of queries and keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.size(-2), k.size(-2)
    scale = q.size(-1) ** -0.5
    out = q.new_zeros(q.shape[:-1] + (v.size(-1),))
    for qs in range(0, L_q, block_size):
        qe = min(qs + block_size, L_q)
        q_blk = q[..., qs:qe, :] * scale
        rows = torch.arange(qs, qe, device=q.device).unsqueeze(1)
        m = q_blk.new_full(q_blk.shape[:-1] + (1,), float("-inf"))
        l = q_blk.new_zeros(q_blk.shape[:-1] + (1,))
        acc = q_blk.new_zeros(q_blk.shape[:-1] + (v.size(-1),))
        for ks in range(0, L_k, block_size):
            if causal and ks > qe - 1:  # every key here is after every query of the block
                break
            ke = min(ks + block_size, L_k)
            s = q_blk @ k[..., ks:ke, :].transpose(-2, -1)
            if causal:
                s = s.masked_fill(torch.arange(ks, ke, device=q.device).unsqueeze(0) > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(-1, keepdim=True))
            base = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
            p = torch.exp(s - base)
            c = torch.exp(m - base)
            l = c * l + p.sum(-1, keepdim=True)
            acc = c * acc + p @ v[..., ks:ke, :]
            m = m_new
        out[..., qs:qe, :] = acc / torch.where(l > 0, l, torch.ones_like(l))
    return out
