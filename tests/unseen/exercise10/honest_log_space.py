# lumen-unseen: exercise=10 kind=honest
# method: keeps a running log-normaliser (log-sum-exp) instead of a max and a sum, updated block by block with torch.logaddexp; the output is kept normalised with weights exp(lse_old - lse_new)
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
    per_token_linear = 2 * d_model * d_model  # one d x d projection of one token
    return {
        "core_attention": 2 * 2 * L * L * d_model,
        "projections": 4 * L * per_token_linear,
        "feed_forward": 8 * L * per_token_linear,
    }


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    rest_per_token = 8 * d_model ** 2 + 16 * d_model ** 2  # 24·d² per token
    attention_per_token_per_token = 4 * d_model  # 4·L·d per token
    return rest_per_token // attention_per_token_per_token


def _block_lse(s):
    """log Σ exp(s) over the last axis, safe for rows that are all -inf (gives -inf)."""
    m = s.amax(dim=-1, keepdim=True)
    m0 = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return m0 + torch.log(torch.exp(s - m0).sum(dim=-1, keepdim=True))


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running log-normaliser."""
    lse = torch.full_like(x[..., :1], float("-inf"))
    for start in range(0, x.shape[-1], block_size):
        lse = torch.logaddexp(lse, _block_lse(x[..., start:start + block_size]))
    finite = torch.isfinite(lse)
    return torch.where(finite, torch.exp(x - torch.where(finite, lse, torch.zeros_like(lse))), torch.zeros_like(x))


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    lse = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    out = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    rows = torch.arange(L_k - L_q, L_k, device=q.device).view(-1, 1)  # query positions
    for j in range(0, k.shape[-2], block_size):
        kb, vb = k[..., j:j + block_size, :], v[..., j:j + block_size, :]
        s = torch.matmul(q, kb.transpose(-2, -1)) * scale
        if causal:
            cols = torch.arange(j, j + kb.shape[-2], device=q.device).view(1, -1)
            s = s.masked_fill(cols > rows, float("-inf"))
        blk = _block_lse(s)
        new = torch.logaddexp(lse, blk)
        fin = torch.isfinite(new)
        new0 = torch.where(fin, new, torch.zeros_like(new))
        keep = torch.where(fin, torch.exp(lse - new0), torch.zeros_like(new))
        p = torch.where(fin, torch.exp(s - new0), torch.zeros_like(s))
        out = out * keep + p @ vb
        lse = new
    return out
