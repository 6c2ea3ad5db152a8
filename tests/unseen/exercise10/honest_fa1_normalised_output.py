# lumen-unseen: exercise=10 kind=honest
# method: FlashAttention-1 style: the running output is kept normalised (o = (l·α·o + P·V) / l_new) at every block; online_softmax pads the row to whole blocks with -inf and views it as (..., n_blocks, block_size)
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
    d = d_model
    scores = 2 * L * L * d  # Q Kᵀ
    weighted = 2 * L * L * d  # A V
    return {"core_attention": scores + weighted, "projections": 4 * (2 * L * d * d),
            "feed_forward": 2 * (2 * L * d * (4 * d))}


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return (24 * d_model * d_model) // (4 * d_model)


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    n = x.shape[-1]
    n_blocks = -(-n // block_size)  # ceil
    pad = n_blocks * block_size - n
    padded = torch.cat([x, x.new_full(x.shape[:-1] + (pad,), float("-inf"))], dim=-1)
    blocks = padded.reshape(x.shape[:-1] + (n_blocks, block_size))
    run_max = x.new_full(x.shape[:-1], float("-inf"))
    run_sum = x.new_zeros(x.shape[:-1])
    for j in range(n_blocks):
        b = blocks[..., j, :]
        new_max = torch.maximum(run_max, b.max(dim=-1).values)
        ref = new_max.masked_fill(torch.isneginf(new_max), 0.0)
        run_sum = run_sum * torch.exp(run_max - ref) + torch.exp(b - ref.unsqueeze(-1)).sum(dim=-1)
        run_max = new_max
    ref = run_max.masked_fill(torch.isneginf(run_max), 0.0).unsqueeze(-1)
    denom = run_sum.masked_fill(run_sum == 0, 1.0).unsqueeze(-1)
    return torch.exp(x - ref) / denom


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    m = q.new_full(q.shape[:-1] + (1,), float("-inf"))
    l = q.new_zeros(q.shape[:-1] + (1,))
    o = q.new_zeros(q.shape[:-1] + (v.shape[-1],))  # kept normalised: o = Σ p v / l
    qi = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)  # query positions: the last L_q
    for j in range(0, L_k, block_size):
        s = q @ k[..., j:j + block_size, :].transpose(-1, -2)
        if causal:
            kj = torch.arange(j, min(j + block_size, L_k), device=q.device)[None, :]
            s = torch.where(kj <= qi, s, torch.full_like(s, float("-inf")))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        ref = m_new.masked_fill(torch.isneginf(m_new), 0.0)
        p = torch.exp(s - ref)
        l_old_scaled = l * torch.exp(m - ref)
        l_new = l_old_scaled + p.sum(-1, keepdim=True)
        safe = l_new.masked_fill(l_new == 0, 1.0)
        o = (l_old_scaled * o + p @ v[..., j:j + block_size, :]) / safe
        m, l = m_new, l_new
    return o
