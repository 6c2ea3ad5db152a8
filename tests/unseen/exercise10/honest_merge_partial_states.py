# lumen-unseen: exercise=10 kind=honest
# method: each key block is reduced on its own to a partial state (its max, its sum, its unnormalised output) which is then merged into the running state with the pairwise log-sum-exp merge; blocks via torch.split on k and v together
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
    costs = {}
    costs["attention"] = 4 * L * L * d_model
    costs["projections"] = 8 * L * d_model * d_model
    costs["feed_forward"] = 16 * L * d_model * d_model
    return costs


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return int(24 / 4 * d_model)


def _zero_if_neginf(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def _merge(m_a, l_a, m_b, l_b, o_a=None, o_b=None):
    """Combine two partial softmax states (max, sum[, unnormalised output]) into one."""
    m = torch.maximum(m_a, m_b)
    m0 = _zero_if_neginf(m)
    w_a = torch.exp(m_a - m0)  # exp(-inf) = 0 for an empty state
    w_b = torch.exp(m_b - m0)
    l = w_a * l_a + w_b * l_b
    if o_a is None:
        return m, l
    return m, l, w_a * o_a + w_b * o_b


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for block in x.split(block_size, dim=-1):
        bm = block.amax(dim=-1, keepdim=True)
        bl = torch.exp(block - _zero_if_neginf(bm)).sum(dim=-1, keepdim=True)
        m, l = _merge(m, l, bm, bl)
    return torch.exp(x - _zero_if_neginf(m)) / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q = q.size(-2)
    qs = q / math.sqrt(q.size(-1))
    rows = torch.arange(L_q, device=q.device)[:, None]
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = q.new_zeros(q.shape[:-1] + (v.size(-1),))
    start = 0
    for kb, vb in zip(k.split(block_size, dim=-2), v.split(block_size, dim=-2)):
        s = qs @ kb.transpose(-2, -1)
        if causal:
            cols = torch.arange(start, start + kb.size(-2), device=q.device)[None, :]
            s = s.masked_fill(cols > rows, float("-inf"))
        bm = s.amax(dim=-1, keepdim=True)
        p = torch.exp(s - _zero_if_neginf(bm))
        m, l, o = _merge(m, l, bm, p.sum(dim=-1, keepdim=True), o, p @ vb)
        start += kb.size(-2)
    return o / torch.where(l == 0, torch.ones_like(l), l)
