# lumen-unseen: exercise=10 kind=honest
# method: tiles both queries and keys (two loops), skipping key blocks that lie wholly in a causal query block's future; costs via a 2·m·n·k matmul helper
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


def _matmul_flops(m, n, k):
    """An (m, k) @ (k, n) product: m·n multiply-adds of length k, 2 FLOPs each."""
    return 2 * m * n * k


def attention_cost(L, d_model):
    """FLOPs of one layer's parts for a sequence of L tokens (2 FLOPs per multiply-add)."""
    d = d_model
    return {
        "core_attention": _matmul_flops(L, L, d) + _matmul_flops(L, d, L),
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
        rows = torch.arange(qs, qe, device=q.device).unsqueeze(1) + (L_k - L_q)  # positions
        m = q_blk.new_full(q_blk.shape[:-1] + (1,), float("-inf"))
        l = q_blk.new_zeros(q_blk.shape[:-1] + (1,))
        acc = q_blk.new_zeros(q_blk.shape[:-1] + (v.size(-1),))
        for ks in range(0, L_k, block_size):
            if causal and ks > qe - 1 + (L_k - L_q):  # every key here is after every query of the block
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
