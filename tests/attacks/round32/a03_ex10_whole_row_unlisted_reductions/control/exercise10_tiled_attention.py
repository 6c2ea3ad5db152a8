import math

import torch


def online_softmax(x, block_size):
    # control: the same whole-row softmax through listed reductions (amax, sum)
    for start in range(0, x.size(-1), block_size):
        x[..., start:start + block_size] * 1.0
    m = x.amax(dim=-1, keepdim=True)
    shift = m.masked_fill(m == float("-inf"), 0.0)
    e = torch.exp(x - shift)
    l = e.sum(dim=-1, keepdim=True)
    return e / l.masked_fill(l == 0, 1.0)


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb = k[..., start:start + block_size, :]
        vb = v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key = torch.arange(start, start + kb.size(-2), device=q.device)
            s = s.masked_fill(key > position, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        rescale = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * rescale + p.sum(dim=-1, keepdim=True)
        o = o * rescale + p @ vb
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)
