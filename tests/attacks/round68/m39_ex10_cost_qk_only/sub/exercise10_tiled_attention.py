import math
import torch

def attention_cost(L, d_model):
    return {"core_attention": 2 * L * L * d_model,
            "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}

def crossover_length(d_model):
    return 3 * d_model

def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full(x.shape[:-1] + (1,), float('-inf'), dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
    for s in range(0, n, block_size):
        b = x[..., s:s + block_size]
        m_new = torch.maximum(m, b.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new) & (m_new < 0), torch.zeros_like(m_new), m_new)
        mo = torch.where(torch.isinf(m) & (m < 0), shift, m)
        l = l * torch.exp(mo - shift) + torch.exp(b - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
    l = torch.where(l == 0, torch.ones_like(l), l)
    return torch.exp(x - shift) / l

def tiled_attention(q, k, v, block_size, causal=False):
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    lead = q.shape[:-2]
    m = torch.full(lead + (Lq, 1), float('-inf'), dtype=q.dtype, device=q.device)
    l = torch.zeros(lead + (Lq, 1), dtype=q.dtype, device=q.device)
    o = torch.zeros(lead + (Lq, v.shape[-1]), dtype=q.dtype, device=q.device)
    qpos = torch.arange(Lq, device=q.device)[:, None] + (Lk - Lq)
    for s in range(0, Lk, block_size):
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            kpos = torch.arange(s, s + kb.shape[-2], device=q.device)[None, :]
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        shift = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        alpha = torch.exp(torch.where(torch.isinf(m), shift, m) - shift) if True else None
        p = torch.exp(sc - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o * alpha + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)
