# lumen-unseen: exercise=10 kind=honest
# method: the running max, sum and output are float64 whatever the input dtype, cast back at the end; causal mask as an additive 0/-inf bias from torch.triu
# note: written from issue 14, then brought to the released stub's contract: the cost key is core_attention (not attention); causal queries are the LAST L_q positions (not top-left)
"""Exercise 10 — Attention without the L×L matrix.

Chapter section: "The cost: attention is quadratic in sequence length" (and, in its further
reading, Dao et al. (2022), FlashAttention).

First the bill. Counting 2 FLOPs per multiply-add, one layer at sequence length L and width
d = d_model costs:

    core attention   S = Q Kᵀ and A V, L·L·d multiply-adds each       4·L²·d
    the projections  W_Q, W_K, W_V and W_O, L·d·d each                 8·L·d²
    the feed-forward d -> 4d -> d, two products of L·d·4d              16·L·d²

The quadratic term catches up with the linear ones, 4·L²·d = 24·L·d², at L = 6d: about 4,600
tokens for GPT-2 small (d = 768). And the (L, L) matrix of scores needs L² numbers per head.

Then the cure: exact attention that never holds the (L, L) matrix. Read the keys and values one
block at a time and keep, for every query, three running values:

    m  the largest score seen so far
    l  the sum of e^(s - m) over the scores seen so far
    o  the sum of e^(s - m) · v over the values seen so far

A new block of scores s_b may raise the max to m_new = max(m, max(s_b)). Everything summed so
far was computed with e^(s - m), so it must be rescaled by e^(m - m_new) (<= 1) before the
block's own terms are added:

    l <- l · e^(m - m_new) + Σ e^(s_b - m_new)
    o <- o · e^(m - m_new) + e^(s_b - m_new) @ v_b

After the last block, the output is o / l. The largest tensor is one block of scores,
(L_q, block_size): memory grows like L·block_size, not L². The grader measures it.

Conventions of this kit:
- Causal, with L_q queries and L_k keys: the queries are the LAST L_q positions, as in the KV
  cache (exercise 8): query i sits at position L_k - L_q + i and may see keys 0 .. L_k - L_q + i.
  With L_q = L_k that is the usual causal mask.
- A query that may see no key at all (causal with L_q > L_k: the first L_q - L_k queries) gets a
  zero output, not 0/0 = NaN, as a fully masked row does in exercise 5.
- The last block may be shorter than block_size, and block_size may be larger than the sequence.

Off limits here (the grader refuses them while your code runs): every torch function whose name
contains "softmax" (torch.softmax, F.softmax and log_softmax, Tensor.softmax, nn.Softmax, ...),
torch's fused attention (torch.nn.functional.scaled_dot_product_attention), nn.MultiheadAttention,
and as in every exercise the answer key (lumen_ref, solutions/) and the grader's own code.
Everything else is allowed: torch.exp, amax, maximum, sum, masked_fill, torch.where, @.

Every function leaves its inputs unchanged and returns tensors in the inputs' dtype (float32 or
float64; float16 and bfloat16 too, on a GPU) and on their device.
"""

import math

import torch


def attention_cost(L, d_model):
    """FLOPs of one layer's parts for a sequence of L tokens (2 FLOPs per multiply-add)."""
    return dict(core_attention=4 * d_model * L ** 2, projections=8 * L * d_model ** 2,
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
            # query i sits at position off + i: bias[i, c] = -inf where key j0 + c > off + i
            off = L_k - L_q
            bias = torch.full((L_q, j1 - j0), float("-inf"), dtype=torch.float64, device=q.device)
            bias = torch.triu(bias, diagonal=1 + off - j0)  # keeps -inf where c - i >= 1 + off - j0
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
