# lumen-unseen: exercise=10 kind=honest
# method: q scaled once before the loop, K transposed once as a view and sliced by columns; the causal limit per query as a (L_q, 1) tensor; online_softmax with a generator of blocks
import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model, "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _blocks(n, b):
    a = 0
    while a < n:
        yield a, min(n, a + b)
        a += b


def _shift(m):
    return m.masked_fill(m == float("-inf"), 0)


def online_softmax(x, block_size):
    m = x.new_full(x.shape[:-1] + (1,), float("-inf"))
    l = x.new_zeros(x.shape[:-1] + (1,))
    for a, b in _blocks(x.shape[-1], block_size):
        nm = torch.maximum(m, x[..., a:b].amax(-1, keepdim=True))
        l = l * (m - _shift(nm)).exp() + (x[..., a:b] - _shift(nm)).exp().sum(-1, keepdim=True)
        m = nm
    return (x - _shift(m)).exp() / l.masked_fill(l == 0, 1)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    qs = q * (1.0 / math.sqrt(q.shape[-1]))
    kT = k.transpose(-2, -1)                            # a view, (..., d_k, L_k)
    last_visible = torch.arange(L_q, device=q.device).view(L_q, 1) + (L_k - L_q)
    m = q.new_full(q.shape[:-1] + (1,), float("-inf"))
    l = q.new_zeros(q.shape[:-1] + (1,))
    o = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    for a, b in _blocks(L_k, block_size):
        s = qs @ kT[..., a:b]
        if causal:
            s = s.masked_fill(torch.arange(a, b, device=q.device).view(1, b - a) > last_visible, float("-inf"))
        nm = torch.maximum(m, s.amax(-1, keepdim=True))
        c = (m - _shift(nm)).exp()
        p = (s - _shift(nm)).exp()
        l = l * c + p.sum(-1, keepdim=True)
        o = o * c + p @ v[..., a:b, :]
        m = nm
    return o / l.masked_fill(l == 0, 1)
