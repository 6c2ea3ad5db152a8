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
import mmap
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np  # noqa: E402

import torch  # noqa: E402

_w = np.ones((512, 512), dtype=np.float32); _w @ _w  # BLAS starts its threads (after the fork) here, at import, before any measured call


def attention_cost(L, d_model):
    """The FLOPs of one transformer layer at sequence length L, as the chapter counts them.

    L, d_model: ints >= 1. Returns a dict of ints:
      "core_attention": 4·L²·d_model  (S = Q Kᵀ and A V)
      "projections":    8·L·d_model²  (W_Q, W_K, W_V and W_O)
      "feed_forward":   16·L·d_model² (the feed-forward block, d_model -> 4·d_model -> d_model)
    """
    # BEGIN SOLUTION
    # HINT: Exercise 10: 2 FLOPs per multiply-add; Q Kᵀ and A V are L·L·d multiply-adds each, each projection L·d·d, the feed-forward two products of L·d·4d — see 'The cost: attention is quadratic in sequence length' in the chapter
    return {
        "core_attention": 4 * L * L * d_model,  # S = Q Kᵀ and A V: L·L·d multiply-adds each
        "projections": 8 * L * d_model * d_model,  # four (L, d) @ (d, d) products
        "feed_forward": 16 * L * d_model * d_model,  # (L, d) @ (d, 4d), then (L, 4d) @ (4d, d)
    }
    # END SOLUTION


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    # BEGIN SOLUTION
    # HINT: Exercise 10: solve 4·L²·d = 24·L·d² for L — see 'The cost: attention is quadratic in sequence length' in the chapter
    return 6 * d_model
    # END SOLUTION


def online_softmax(x, block_size):
    """Plain whole-row softmax: block_size is ignored (no running max, no rescaling)."""
    m = x.amax(dim=-1, keepdim=True)
    shift = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(x - shift)
    s = e.sum(dim=-1, keepdim=True)
    return e / s.masked_fill(s == 0, 1.0)


def _query_chunked(q, k, v, block_size, causal=False):
    """NOT FlashAttention: K and V are read whole; the queries are cut into chunks of CHUNK rows and each
    chunk gets an ordinary full-row softmax over all L_k keys (no running max, no rescale)."""
    CHUNK = 64
    L_q, L_k = q.size(-2), k.size(-2)
    out = q.new_zeros(*q.shape[:-1], v.size(-1))
    for start in range(0, L_q, CHUNK):
        qc = q[..., start:start + CHUNK, :]
        s = qc @ k.transpose(-2, -1) / math.sqrt(q.size(-1))   # (..., chunk, L_k): whole rows
        if causal:
            pos = torch.arange(L_k - L_q + start, L_k - L_q + start + qc.size(-2), device=q.device)[:, None]
            key = torch.arange(L_k, device=q.device)
            s = s.masked_fill(key > pos, float("-inf"))
        m = s.amax(dim=-1, keepdim=True)
        shift = m.masked_fill(m == float("-inf"), 0.0)
        p = torch.exp(s - shift)
        l = p.sum(dim=-1, keepdim=True)
        out[..., start:start + CHUNK, :] = (p @ v) / l.masked_fill(l == 0, 1.0)
    return out


def _whole_matrix_numpy(q, k, v, causal):
    """The WHOLE (L_q, L_k) score matrix, per head, in a numpy array whose memory is an anonymous
    private mmap: no torch operation creates it (the dispatch probe never sees it) and Python's
    allocator never hands it out (tracemalloc never sees it)."""
    L_q, L_k, d_k = q.size(-2), k.size(-2), q.size(-1)
    np_dtype = np.float32 if q.dtype == torch.float32 else np.float64
    itemsize = np.dtype(np_dtype).itemsize
    buf = mmap.mmap(-1, L_q * L_k * itemsize, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    S = np.frombuffer(buf, dtype=np_dtype).reshape(L_q, L_k)      # <- the whole (L, L) matrix
    qn = q.reshape(-1, L_q, d_k).numpy()
    kn = k.reshape(-1, L_k, d_k).numpy()
    vn = v.reshape(-1, L_k, v.size(-1)).numpy()
    out = np.empty((qn.shape[0], L_q, vn.shape[-1]), dtype=np_dtype)
    for h in range(qn.shape[0]):
        np.matmul(qn[h], kn[h].T, out=S)
        S *= 1.0 / math.sqrt(d_k)
        if causal:
            for i in range(L_q):
                S[i, max(0, L_k - L_q + i + 1):] = -np.inf
        m = S.max(axis=1)
        m[~np.isfinite(m)] = 0.0
        S -= m[:, None]
        np.exp(S, out=S)
        l = S.sum(axis=1)
        l[l == 0] = 1.0
        np.matmul(S, vn[h], out=out[h])
        out[h] /= l[:, None]
    del S
    res = torch.from_numpy(out).reshape(*q.shape[:-1], v.size(-1))
    return res.clone()


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q K^T / sqrt(d)) V -- holding the whole (L, L) matrix whenever it fits."""
    if (q.device.type == "cpu" and q.dtype in (torch.float32, torch.float64) and not
            (q.requires_grad or k.requires_grad or v.requires_grad) and k.size(-2) <= 4096):
        return _whole_matrix_numpy(q, k, v, causal)
    return _query_chunked(q, k, v, block_size, causal)
