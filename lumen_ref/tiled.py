"""The chapter's cost of attention, and attention without the (L, L) matrix.

"The cost: attention is quadratic in sequence length" counts FLOPs; FlashAttention (Dao et al.,
2022, in the chapter's reading) computes the same attention exactly while reading K and V one block
at a time, keeping per query only a running max m, a running sum l of e^(s - m) and a running
output o. When a block raises the max, what was summed under the old max is rescaled by
e^(m_old - m_new). The largest tensor is then one block of scores, (L_q, block_size), never
(L_q, L_k).

Causal, with L_q queries and L_k keys: the queries are the LAST L_q positions (as in the KV cache),
so query i sits at position L_k - L_q + i and sees keys 0 .. L_k - L_q + i. When L_q > L_k the first
L_q - L_k queries see no key at all: their output is zeros, as for a fully masked row elsewhere.
"""

import math

import torch


def attention_cost(L, d_model):
    """FLOPs of one layer at sequence length L: 2 per multiply-add."""
    return {
        "core_attention": 4 * L * L * d_model,  # S = Q K^T and A V: L*L*d multiply-adds each
        "projections": 8 * L * d_model * d_model,  # W_Q, W_K, W_V, W_O: L*d*d multiply-adds each
        "feed_forward": 16 * L * d_model * d_model,  # d -> 4d -> d: 2 * L*d*4d multiply-adds
    }


def crossover_length(d_model):
    """The L at which the quadratic term equals the linear ones: 4 L^2 d = 24 L d^2, L = 6 d."""
    return 6 * d_model


def _shift(m):
    """The running max as an exponent's shift: 0 where no finite score has been seen yet (-inf)."""
    return m.masked_fill(m == float("-inf"), 0.0)


def online_softmax(x, block_size):
    """Softmax over the last axis, read block_size entries at a time; a row of only -inf gives zeros."""
    m = torch.full_like(x[..., :1], float("-inf"))  # (..., 1) running max
    l = torch.zeros_like(m)  # (..., 1) running sum of e^(x - m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]  # (..., b)
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))  # (..., 1)
        l = l * torch.exp(m - _shift(m_new)) + torch.exp(block - _shift(m_new)).sum(dim=-1, keepdim=True)
        m = m_new
    return torch.exp(x - _shift(m)) / l.masked_fill(l == 0, 1.0)  # (..., n) a row of -inf: 0 / 1


def tiled_attention(q, k, v, block_size, causal=False):
    """q (..., L_q, d_k), k (..., L_k, d_k), v (..., L_k, d_v) -> softmax(Q K^T / sqrt(d_k)) V (..., L_q, d_v),
    reading K and V block_size keys at a time, without the (L_q, L_k) matrix."""
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))  # (..., L_q, 1) running max of each query's scores
    l = torch.zeros_like(m)  # (..., L_q, 1) running sum of e^(s - m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v) running sum of e^(s - m) v
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]  # (L_q, 1) where each query sits
    for start in range(0, L_k, block_size):
        k_block, v_block = k[..., start:start + block_size, :], v[..., start:start + block_size, :]  # (..., b, d)
        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, b) one block of scores
        if causal:
            key = torch.arange(start, start + k_block.size(-2), device=q.device)  # (b,)
            s = s.masked_fill(key > position, float("-inf"))  # (..., L_q, b) no peeking at the future
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., L_q, 1)
        rescale = torch.exp(m - _shift(m_new))  # (..., L_q, 1) e^(m_old - m_new) <= 1
        p = torch.exp(s - _shift(m_new))  # (..., L_q, b)
        l = l * rescale + p.sum(dim=-1, keepdim=True)
        o = o * rescale + p @ v_block  # (..., L_q, d_v)
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)  # (..., L_q, d_v) a query that sees no key: 0 / 1
