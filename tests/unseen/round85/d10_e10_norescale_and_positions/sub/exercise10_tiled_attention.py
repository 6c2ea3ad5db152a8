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
(L_q, block_size): memory grows like L·block_size, not L². The grader checks it twice: the
largest tensor your code makes must not grow like L², and one call at a length whose (L, L)
scores do not fit in the memory the grader gives it must still return the right answer.

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
float64; float16 and bfloat16 too) and on their device.
"""

import math

import torch


def attention_cost(L, d_model):
    """The FLOPs of one transformer layer at sequence length L, as the chapter counts them.

    L, d_model: ints >= 1. Returns a dict of ints:
      "core_attention": 4·L²·d_model  (S = Q Kᵀ and A V)
      "projections":    8·L·d_model²  (W_Q, W_K, W_V and W_O)
      "feed_forward":   16·L·d_model² (the feed-forward block, d_model -> 4·d_model -> d_model)
    """
    return {
        "core_attention": 4 * L * L * d_model,  # S = Q Kᵀ and A V: L·L·d multiply-adds each
        "projections": 8 * L * d_model * d_model,  # four (L, d) @ (d, d) products
        "feed_forward": 16 * L * d_model * d_model,  # (L, d) @ (d, 4d), then (L, 4d) @ (4d, d)
    }


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    return 6 * d_model


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time.

    x: any shape (..., n), float; entries may be -inf (masked) or huge (±1e4).
    block_size: int >= 1 (the last block may be shorter; block_size > n is one block).
    Returns a new tensor of x's shape: each row is non-negative and sums to 1, except a row that is
    entirely -inf, which gives zeros.

    First pass, block by block: the running max m and the running sum l of e^(x - m), rescaled by
    e^(m_old - m_new) whenever a block raises the max. Second pass: e^(x - m) / l.
    """
    m = torch.full_like(x[..., :1], float("-inf"))  # (..., 1) running max
    l = torch.zeros_like(m)  # (..., 1) running sum of e^(x - m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]  # (..., b) the last one may be shorter
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))  # (..., 1)
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., 1) nothing finite yet: shift by 0
        l = l + torch.exp(block - shift).sum(dim=-1, keepdim=True)  # rescale, then add
        m = m_new
    shift = m.masked_fill(m == float("-inf"), 0.0)  # (..., 1)
    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)  # (..., n) a row of only -inf: 0 / 1


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d_k) V, exactly, reading K and V block_size keys at a time.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v), the same leading dims.
    block_size: int >= 1 (the last block may be shorter; block_size > L_k is one block).
    causal: query i sits at position L_k - L_q + i and may see keys 0 .. L_k - L_q + i; a query
            that may see no key gets a zero output.
    Returns the output (..., L_q, d_v) (no weights: they are never formed). Never build a tensor of
    shape (..., L_q, L_k): the largest one should be a block of scores, (..., L_q, block_size).
    It must train like whole-matrix attention: its gradients (autograd through your loop) are
    those of softmax(Q Kᵀ / √d_k) V, and finite for a query that sees no key.
    """
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))  # (..., L_q, 1) running max of each query's scores
    l = torch.zeros_like(m)  # (..., L_q, 1) running sum of e^(s - m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v) running sum of e^(s - m) v
    position = torch.arange(L_q, device=q.device)[:, None]  # (L_q, 1) where each query sits
    for start in range(0, L_k, block_size):
        k_block = k[..., start:start + block_size, :]  # (..., b, d_k) the last block may be shorter
        v_block = v[..., start:start + block_size, :]  # (..., b, d_v)
        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, b) one block of scores
        if causal:
            key = torch.arange(start, start + k_block.size(-2), device=q.device)  # (b,) the keys' positions
            s = s.masked_fill(key > position, float("-inf"))  # (..., L_q, b) no peeking at the future
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., L_q, 1)
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., L_q, 1) no key seen yet: shift by 0
        rescale = torch.exp(m - shift)  # (..., L_q, 1) e^(m_old - m_new) <= 1
        p = torch.exp(s - shift)  # (..., L_q, b)
        l = l * rescale + p.sum(dim=-1, keepdim=True)  # (..., L_q, 1)
        o = o * rescale + p @ v_block  # (..., L_q, d_v)
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)  # (..., L_q, d_v) a query that sees no key: 0 / 1
