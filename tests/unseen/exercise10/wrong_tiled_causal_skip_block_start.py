# lumen-unseen: exercise=10 kind=wrong
# mistake: tiled_attention (tiles of queries and keys) stops the causal key loop when k_start >= q_start, skipping the diagonal block that holds each query's own and nearby keys (should stop only when k_start > the position of the block's last query); the first query block sees no key at all
# expect: diagonal|skip|>=|off[- ]by[- ]one|itself
# reject: rescal|partial block|last block|softmax
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
    return {
        "core_attention": 4 * L * L * d_model,  # QKᵀ and A·V: 2·L²·d each
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
        rows = torch.arange(q_start, q_start + q_blk.size(-2), device=q.device).unsqueeze(-1) + (L_k - L_q)
        m = torch.full(q_blk.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
        l = torch.zeros_like(m)
        o = torch.zeros(q_blk.shape[:-1] + (v.size(-1),), dtype=q.dtype, device=q.device)
        for k_start in range(0, L_k, block_size):
            if causal and k_start >= q_start + (L_k - L_q):  # the key block lies in this query block's future
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
