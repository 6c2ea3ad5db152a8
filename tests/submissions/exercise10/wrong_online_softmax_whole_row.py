"""Exercise 10 whose online_softmax is an ordinary stable softmax of each whole row: block_size is
never used, so nothing is read a block at a time (the values are right).

Diagnosis: online-softmax-not-in-blocks.
"""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    m = x.amax(dim=-1, keepdim=True)  # the whole row at once
    m = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(x - m)
    total = e.sum(dim=-1, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))  # (..., L_q, 1) running max of each query's scores
    l = torch.zeros_like(m)  # (..., L_q, 1) running sum of e^(s - m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v) running sum of e^(s - m) v
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]  # (L_q, 1) where each query sits
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
