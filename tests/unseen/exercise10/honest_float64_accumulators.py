# lumen-unseen: exercise=10 kind=honest
# method: the running max, sum and output are float64 whatever the input dtype, cast back at the end; causal mask as an additive 0/-inf bias from torch.triu
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
    return dict(attention=4 * d_model * L ** 2, projections=8 * L * d_model ** 2,
                feed_forward=16 * L * d_model ** 2)


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return d_model * 6


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    xd = x.double()
    big_neg = float("-inf")
    m = xd.new_full(xd.shape[:-1] + (1,), big_neg)
    s = xd.new_zeros(xd.shape[:-1] + (1,))
    for b in torch.split(xd, block_size, dim=-1):
        m_b = b.amax(dim=-1, keepdim=True)
        m_new = torch.maximum(m, m_b)
        anchor = torch.nan_to_num(m_new, neginf=0.0)
        s = s * (m - anchor).exp() + (b - anchor).exp().sum(dim=-1, keepdim=True)
        m = m_new
    anchor = torch.nan_to_num(m, neginf=0.0)
    s = torch.where(s == 0, torch.ones_like(s), s)
    return ((xd - anchor).exp() / s).to(x.dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    qd, kd, vd = q.double(), k.double(), v.double()
    L_q, L_k, d = q.shape[-2], k.shape[-2], q.shape[-1]
    m = qd.new_full(qd.shape[:-1] + (1,), float("-inf"))
    l = qd.new_zeros(qd.shape[:-1] + (1,))
    o = qd.new_zeros(qd.shape[:-1] + (v.shape[-1],))
    for j0 in range(0, L_k, block_size):
        j1 = min(j0 + block_size, L_k)
        s = qd @ kd[..., j0:j1, :].transpose(-2, -1) / math.sqrt(d)
        if causal:
            # bias[i, c] = -inf where key j0 + c > i
            bias = torch.full((L_q, j1 - j0), float("-inf"), dtype=torch.float64, device=q.device)
            bias = torch.triu(bias, diagonal=1 - j0)  # keeps -inf where c - i >= 1 - j0
            s = s + bias
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        anchor = torch.nan_to_num(m_new, neginf=0.0)
        corr = (m - anchor).exp()
        p = (s - anchor).exp()
        l = corr * l + p.sum(dim=-1, keepdim=True)
        o = corr * o + p @ vd[..., j0:j1, :]
        m = m_new
    l = torch.where(l == 0, torch.ones_like(l), l)
    return (o / l).to(q.dtype)
