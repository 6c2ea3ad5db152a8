# lumen-unseen: exercise=10 kind=honest
# method: half/bfloat16 upcast to float32 (float32/64 kept as they are); keys block via index_select; m kept without keepdim and broadcast with unsqueeze; scores as (k_b @ q^T)^T
import math

import torch


def attention_cost(L, d_model):
    out = {}
    out["core_attention"] = 4 * d_model * L * L
    out["projections"] = 8 * d_model * d_model * L
    out["feed_forward"] = 16 * d_model * d_model * L
    return out


def crossover_length(d_model):
    return int(6 * d_model)


def _work_dtype(t):
    return torch.float32 if t.dtype in (torch.float16, torch.bfloat16) else t.dtype


def online_softmax(x, block_size):
    wd = _work_dtype(x)
    xw = x.to(wd)
    n = xw.shape[-1]
    m = torch.full(xw.shape[:-1], -math.inf, dtype=wd, device=x.device)
    l = torch.zeros(xw.shape[:-1], dtype=wd, device=x.device)
    for i in range(math.ceil(n / block_size)):
        idx = torch.arange(i * block_size, min(n, (i + 1) * block_size), device=x.device)
        blk = xw.index_select(-1, idx)
        m_new = torch.maximum(m, blk.amax(-1))
        fin = torch.where(m_new > -math.inf, m_new, torch.zeros_like(m_new))
        l = l * torch.exp(m - fin) + torch.exp(blk - fin.unsqueeze(-1)).sum(-1)
        m = m_new
    fin = torch.where(m > -math.inf, m, torch.zeros_like(m))
    y = torch.exp(xw - fin.unsqueeze(-1)) / torch.where(l > 0, l, torch.ones_like(l)).unsqueeze(-1)
    return y.to(x.dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    wd = _work_dtype(q)
    qw, kw, vw = q.to(wd), k.to(wd), v.to(wd)
    L_q, L_k = qw.shape[-2], kw.shape[-2]
    scale = 1.0 / math.sqrt(qw.shape[-1])
    m = torch.full(qw.shape[:-1], -math.inf, dtype=wd, device=q.device)
    l = torch.zeros(qw.shape[:-1], dtype=wd, device=q.device)
    o = torch.zeros(qw.shape[:-1] + (vw.shape[-1],), dtype=wd, device=q.device)
    qpos = torch.arange(L_q, device=q.device) + (L_k - L_q)
    n_blocks = (L_k + block_size - 1) // block_size
    for i in range(n_blocks):
        idx = torch.arange(i * block_size, min(L_k, (i + 1) * block_size), device=q.device)
        kb, vb = kw.index_select(-2, idx), vw.index_select(-2, idx)
        s = (kb @ qw.transpose(-2, -1)).transpose(-2, -1) * scale
        if causal:
            s = s.masked_fill(idx.unsqueeze(0) > qpos.unsqueeze(1), -math.inf)
        m_new = torch.maximum(m, s.amax(-1))
        fin = torch.where(m_new > -math.inf, m_new, torch.zeros_like(m_new))
        corr = torch.exp(m - fin)
        p = torch.exp(s - fin.unsqueeze(-1))
        l = l * corr + p.sum(-1)
        o = o * corr.unsqueeze(-1) + p @ vb
        m = m_new
    o = o / torch.where(l > 0, l, torch.ones_like(l)).unsqueeze(-1)
    return o.to(q.dtype)
