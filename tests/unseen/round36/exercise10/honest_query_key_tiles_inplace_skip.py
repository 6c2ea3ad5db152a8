"""Exercise 10 — Attention without the L×L matrix.

Tiles over queries AND keys (both block_size), so the largest score tensor is
(..., block_size, block_size). The output is preallocated and each query tile is written into its
slice (autograd records the slice copy). With causal=True, key blocks that lie entirely in the
future of a whole query tile are skipped (they would only add exact zeros), and a query tile that
sees no key at all is left at zero. Running statistics are updated with in-place ops on tensors the
loop itself created.
"""

import math

import torch

NEG_INF = float("-inf")


def attention_cost(L, d_model):
    per_product = L * d_model * d_model
    return {
        "core_attention": 2 * 2 * L * L * d_model,
        "projections": 2 * 4 * per_product,
        "feed_forward": 2 * 2 * 4 * per_product,
    }


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    *lead, n = x.shape
    m = x.new_full((*lead, 1), NEG_INF)
    l = x.new_zeros((*lead, 1))
    for start in range(0, n, block_size):
        blk = x.narrow(-1, start, min(block_size, n - start))
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        shift = torch.nan_to_num(m_new, neginf=0.0)  # -inf (nothing seen) -> shift by 0
        l = l * (m - shift).exp() + (blk - shift).exp().sum(dim=-1, keepdim=True)
        m = m_new
    return (x - torch.nan_to_num(m, neginf=0.0)).exp() / l.masked_fill(l == 0, 1)


def _tile(q_t, k, v, q_pos, block_size, k_stop, scale, causal):
    """Attention of one query tile against keys [0, k_stop)."""
    m = q_t.new_full((*q_t.shape[:-1], 1), NEG_INF)
    l = q_t.new_zeros((*q_t.shape[:-1], 1))
    o = q_t.new_zeros((*q_t.shape[:-1], v.shape[-1]))
    for ks in range(0, k_stop, block_size):
        ke = min(ks + block_size, k_stop)
        s = q_t @ k[..., ks:ke, :].transpose(-2, -1)
        s.mul_(scale)  # s is the matmul's fresh output; matmul saved only its inputs
        if causal:
            future = torch.arange(ks, ke, device=q_t.device)[None, :] > q_pos[:, None]
            s.masked_fill_(future, NEG_INF)
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == NEG_INF, 0.0)
        alpha = (m - shift).exp()
        p = (s - shift).exp()
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o.mul_(alpha).add_(p @ v[..., ks:ke, :])  # o belongs to this loop
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    out = q.new_zeros((*q.shape[:-2], L_q, v.shape[-1]))
    offset = L_k - L_q
    for qs in range(0, L_q, block_size):
        qe = min(qs + block_size, L_q)
        q_pos = torch.arange(qs, qe, device=q.device) + offset
        # the last query of the tile sees keys up to position offset + qe - 1
        k_stop = min(L_k, offset + qe) if causal else L_k
        if k_stop <= 0:
            continue  # no query of this tile sees any key: output stays 0
        out[..., qs:qe, :] = _tile(q[..., qs:qe, :], k, v, q_pos, block_size, k_stop, scale, causal)
    return out
