# lumen-unseen: exercise=10 kind=honest
# method: port of FlashAttention-2's forward loop (Dao 2023, Algorithm 1) to PyTorch: outer loop over query blocks, inner loop over key blocks, unnormalised accumulator and one division at the end
# ideal: full marks
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
    core = 2 * (2 * L**2 * d_model)  # two L x L x d products
    proj = 4 * (2 * L * d_model**2)  # four d x d projections
    ffn = 2 * (2 * L * d_model * (4 * d_model))  # up and down
    return {"core_attention": core, "projections": proj, "feed_forward": ffn}


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    # 4 L^2 d = (8 + 16) L d^2  ->  L = 6 d
    return int(6 * d_model)


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time.

    x: any shape (..., n), float; entries may be -inf (masked) or huge (±1e4).
    block_size: int >= 1 (the last block may be shorter; block_size > n is one block).
    Returns a new tensor of x's shape: each row is non-negative and sums to 1, except a row that is
    entirely -inf, which gives zeros.

    First pass, block by block: the running max m and the running sum l of e^(x - m), rescaled by
    e^(m_old - m_new) whenever a block raises the max. Second pass: e^(x - m) / l.
    """
    shape = x.shape[:-1] + (1,)
    row_max = x.new_full(shape, float("-inf"))
    row_sum = x.new_zeros(shape)
    for j in range(0, x.shape[-1], block_size):
        xb = x[..., j:j + block_size]
        new_max = torch.maximum(row_max, xb.amax(dim=-1, keepdim=True))
        ref = torch.where(torch.isinf(new_max) & (new_max < 0), torch.zeros_like(new_max), new_max)
        row_sum = row_sum * torch.exp(row_max - ref) + torch.exp(xb - ref).sum(dim=-1, keepdim=True)
        row_max = new_max
    ref = torch.where(torch.isinf(row_max) & (row_max < 0), torch.zeros_like(row_max), row_max)
    denom = torch.where(row_sum == 0, torch.ones_like(row_sum), row_sum)
    return torch.exp(x - ref) / denom


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
    N_q, d = q.shape[-2], q.shape[-1]
    N_k = k.shape[-2]
    softmax_scale = 1.0 / math.sqrt(d)
    Br = Bc = block_size
    outputs = []
    for i in range(0, N_q, Br):  # one block of queries (Q_i)
        Qi = q[..., i:i + Br, :]
        rows = Qi.shape[-2]
        qpos = torch.arange(i, i + rows, device=q.device) + (N_k - N_q)
        Oi = q.new_zeros((*Qi.shape[:-1], v.shape[-1]))
        li = q.new_zeros((*Qi.shape[:-1], 1))
        mi = q.new_full((*Qi.shape[:-1], 1), float("-inf"))
        for j in range(0, N_k, Bc):  # one block of keys (K_j, V_j)
            Kj, Vj = k[..., j:j + Bc, :], v[..., j:j + Bc, :]
            Sij = (Qi @ Kj.transpose(-2, -1)) * softmax_scale
            if causal:
                kpos = torch.arange(j, j + Kj.shape[-2], device=q.device)
                Sij = Sij.masked_fill(kpos[None, :] > qpos[:, None], float("-inf"))
            mi_new = torch.maximum(mi, Sij.amax(dim=-1, keepdim=True))
            ref = torch.where(torch.isneginf(mi_new), torch.zeros_like(mi_new), mi_new)
            Pij = torch.exp(Sij - ref)
            corr = torch.exp(mi - ref)
            li = corr * li + Pij.sum(dim=-1, keepdim=True)
            Oi = corr * Oi + Pij @ Vj
            mi = mi_new
        outputs.append(Oi / torch.where(li == 0, torch.ones_like(li), li))
    return torch.cat(outputs, dim=-2)
