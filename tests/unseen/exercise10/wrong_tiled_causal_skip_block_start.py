# lumen-unseen: exercise=10 kind=wrong
# mistake: tiled_attention (tiles of queries and keys) stops the causal key loop when k_start >= q_start, skipping the diagonal block that holds each query's own and nearby keys (should stop only when k_start > the block's last query); the first query block sees no key at all
# expect: diagonal|skip|>=|off[- ]by[- ]one|itself
# reject: rescal|partial block|last block|softmax
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
    """softmax(Q Kᵀ / √d) V over blocks of queries and keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.size(-2), k.size(-2)
    scale = 1.0 / math.sqrt(q.size(-1))
    out = torch.zeros(q.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
    for q_start in range(0, L_q, block_size):
        q_blk = q[..., q_start:q_start + block_size, :]
        rows = torch.arange(q_start, q_start + q_blk.size(-2), device=q.device).unsqueeze(-1)
        m = torch.full(q_blk.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        o = torch.zeros(q_blk.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
        for k_start in range(0, L_k, block_size):
            if causal and k_start >= q_start:  # the key block lies in this query block's future
                break
            k_blk = k[..., k_start:k_start + block_size, :]
            v_blk = v[..., k_start:k_start + block_size, :]
            s = (q_blk @ k_blk.transpose(-2, -1)) * scale
            if causal:
                cols = torch.arange(k_start, k_start + k_blk.size(-2), device=q.device)
                s = s.masked_fill(cols > rows, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            shift = torch.where(m_new == float("-inf"), torch.zeros_like(m_new), m_new)
            alpha = torch.exp(m - shift)
            p = torch.exp(s - shift)
            l = l * alpha + p.sum(dim=-1, keepdim=True)
            o = o * alpha + p @ v_blk
            m = m_new
        out[..., q_start:q_start + block_size, :] = o / torch.where(l == 0, torch.ones_like(l), l)
    return out
