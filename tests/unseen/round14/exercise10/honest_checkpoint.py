# lumen-unseen: exercise=10 kind=honest
# method: each key block's update is wrapped in torch.utils.checkpoint (non-reentrant) so backward also keeps only one block of scores; online_softmax with a while loop
import math

import torch
from torch.utils.checkpoint import checkpoint


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model, "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _shift(m):
    return torch.where(m == -math.inf, torch.zeros_like(m), m)


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full_like(x[..., :1], -math.inf)
    l = torch.zeros_like(x[..., :1])
    i = 0
    while i < n:
        blk = x[..., i:i + block_size]
        m_new = torch.maximum(m, blk.amax(-1, keepdim=True))
        l = l * torch.exp(m - _shift(m_new)) + torch.exp(blk - _shift(m_new)).sum(-1, keepdim=True)
        m = m_new
        i += block_size
    return torch.exp(x - _shift(m)) / torch.where(l == 0, torch.ones_like(l), l)


def _step(q, kb, vb, m, l, o, kpos, qpos, scale, causal):
    s = (q @ kb.transpose(-2, -1)) * scale
    if causal:
        s = s.masked_fill(kpos > qpos, -math.inf)
    m_new = torch.maximum(m, s.amax(-1, keepdim=True))
    a = torch.exp(m - _shift(m_new))
    p = torch.exp(s - _shift(m_new))
    return m_new, l * a + p.sum(-1, keepdim=True), o * a + p @ vb


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    qpos = torch.arange(L_q, device=q.device)[:, None] + (L_k - L_q)
    m = torch.full_like(q[..., :1], -math.inf)
    l = torch.zeros_like(q[..., :1])
    o = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    for a in range(0, L_k, block_size):
        kb, vb = k[..., a:a + block_size, :], v[..., a:a + block_size, :]
        kpos = torch.arange(a, a + kb.shape[-2], device=q.device)[None, :]
        if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
            m, l, o = checkpoint(_step, q, kb, vb, m, l, o, kpos, qpos, scale, causal, use_reentrant=False)
        else:
            m, l, o = _step(q, kb, vb, m, l, o, kpos, qpos, scale, causal)
    return o / torch.where(l == 0, torch.ones_like(l), l)
