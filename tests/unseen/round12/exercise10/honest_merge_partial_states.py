# lumen-unseen: exercise=10 kind=honest
# method: split-KV style (as in FlashDecoding's combine step): each key block yields a partial state (block max, block sum, NORMALISED block output) and a helper merges two states associatively (float32 state for half inputs), guarded for rows that see nothing
# ideal: full marks
# expect: full marks|pass|correct|✓
# reject: \bis wrong\b|\bincorrect(ly)?\b|\b[1-9]\d* (tests? )?failed\b
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


_NEG_INF = float("-inf")


def _accumulator_dtype(dtype):
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def _finite_or_zero(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def _nonzero_or_one(t):
    return torch.where(t == 0, torch.ones_like(t), t)


def _combine(m_a, l_a, m_b, l_b):
    """Merge two (max, sum of e^(x - max)) states; also returns each side's weight in the merged sum."""
    m = torch.maximum(m_a, m_b)
    ref = _finite_or_zero(m)
    w_a = l_a * torch.exp(m_a - ref)
    w_b = l_b * torch.exp(m_b - ref)
    return m, w_a + w_b, w_a, w_b


def _block_state(scores, values):
    """(max, sum, normalised output) of one block of scores; a row that sees nothing gives (-inf, 0, 0)."""
    m = scores.amax(dim=-1, keepdim=True)
    p = torch.exp(scores - _finite_or_zero(m))
    l = p.sum(dim=-1, keepdim=True)
    return m, l, (p @ values) / _nonzero_or_one(l)


def attention_cost(L, d_model):
    """The FLOPs of one transformer layer at sequence length L, as the chapter counts them.

    L, d_model: ints >= 1. Returns a dict of ints:
      "core_attention": 4·L²·d_model  (S = Q Kᵀ and A V)
      "projections":    8·L·d_model²  (W_Q, W_K, W_V and W_O)
      "feed_forward":   16·L·d_model² (the feed-forward block, d_model -> 4·d_model -> d_model)
    """
    flops_per_mac = 2
    return {
        "core_attention": flops_per_mac * 2 * L * L * d_model,
        "projections": flops_per_mac * 4 * L * d_model ** 2,
        "feed_forward": flops_per_mac * 2 * L * d_model * (4 * d_model),
    }


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    L = (24 * d_model ** 2) // (4 * d_model)
    assert 4 * L * L * d_model == 24 * L * d_model ** 2
    return int(L)


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time.

    x: any shape (..., n), float; entries may be -inf (masked) or huge (±1e4).
    block_size: int >= 1 (the last block may be shorter; block_size > n is one block).
    Returns a new tensor of x's shape: each row is non-negative and sums to 1, except a row that is
    entirely -inf, which gives zeros.

    First pass, block by block: the running max m and the running sum l of e^(x - m), rescaled by
    e^(m_old - m_new) whenever a block raises the max. Second pass: e^(x - m) / l.
    """
    xs = x.to(_accumulator_dtype(x.dtype))
    m = torch.full_like(xs[..., :1], _NEG_INF)
    l = torch.zeros_like(xs[..., :1])
    for start in range(0, xs.shape[-1], block_size):
        block = xs[..., start:start + block_size]
        block_m = block.amax(dim=-1, keepdim=True)
        block_l = torch.exp(block - _finite_or_zero(block_m)).sum(dim=-1, keepdim=True)
        m, l, _, _ = _combine(m, l, block_m, block_l)
    return (torch.exp(xs - _finite_or_zero(m)) / _nonzero_or_one(l)).to(x.dtype)


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
    out_dtype = q.dtype
    q, k, v = (t.to(_accumulator_dtype(out_dtype)) for t in (q, k, v))
    L_q, L_k = q.shape[-2], k.shape[-2]
    sm_scale = q.shape[-1] ** -0.5
    offset = L_k - L_q
    m = q.new_full(q.shape[:-1] + (1,), _NEG_INF)
    l = q.new_zeros(q.shape[:-1] + (1,))
    out = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    for start in range(0, L_k, block_size):
        stop = min(start + block_size, L_k)
        scores = torch.matmul(q, k[..., start:stop, :].transpose(-1, -2)) * sm_scale
        if causal:
            rows = torch.arange(L_q, device=q.device)[:, None] + offset
            cols = torch.arange(start, stop, device=q.device)[None, :]
            scores = scores.masked_fill(cols > rows, _NEG_INF)
        block_m, block_l, block_out = _block_state(scores, v[..., start:stop, :])
        m, l, w_old, w_new = _combine(m, l, block_m, block_l)
        out = (out * w_old + block_out * w_new) / _nonzero_or_one(l)
    return out.to(out_dtype)
