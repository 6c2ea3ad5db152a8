# lumen-unseen: exercise=10 kind=honest
# method: FlashAttention-style but the running output is kept already divided by l (o <- (o*l*alpha + p@v)/l_new); online_softmax with masked_fill-guarded shifts
import math

import torch


def attention_cost(L, d_model):
    d = d_model
    return dict(core_attention=4 * L ** 2 * d, projections=8 * L * d ** 2, feed_forward=16 * L * d ** 2)


def crossover_length(d_model):
    return int(24 * d_model ** 2 / (4 * d_model))


def _safe(m):
    return m.masked_fill(torch.isneginf(m), 0.0)


def online_softmax(x, block_size):
    m = x.new_full((*x.shape[:-1], 1), -math.inf)
    l = x.new_zeros((*x.shape[:-1], 1))
    for blk in x.split(block_size, dim=-1):
        m_new = torch.maximum(m, blk.amax(-1, keepdim=True))
        sm = _safe(m_new)
        l = l * (m - sm).exp() + (blk - sm).exp().sum(-1, keepdim=True)
        m = m_new
    y = (x - _safe(m)).exp()
    return y / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    Lq, Lk = q.size(-2), k.size(-2)
    scale = q.size(-1) ** -0.5
    m = q.new_full((*q.shape[:-1], 1), -math.inf)
    l = q.new_zeros((*q.shape[:-1], 1))
    o = q.new_zeros((*q.shape[:-1], v.size(-1)))
    qpos = torch.arange(Lk - Lq, Lk, device=q.device).view(-1, 1)
    for kb, vb, start in zip(k.split(block_size, -2), v.split(block_size, -2), range(0, Lk, block_size)):
        s = torch.matmul(q, kb.transpose(-1, -2)) * scale
        if causal:
            kpos = torch.arange(start, start + kb.size(-2), device=q.device).view(1, -1)
            s = s.masked_fill(kpos > qpos, -math.inf)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        sm = _safe(m_new)
        alpha = (m - sm).exp()
        p = (s - sm).exp()
        l_new = l * alpha + p.sum(-1, keepdim=True)
        o = (o * (l * alpha) + p @ vb) / l_new.masked_fill(l_new == 0, 1.0)
        l, m = l_new, m_new
    return o
