# lumen-unseen: exercise=10 kind=wrong
# mistake: (written as honest, found by my own check) the vectorised-block-stats online_softmax rescales an all -inf block's zero sum by e^(0 - m) = inf when the running max is below ~-709 (e.g. row [-1e4, -inf] with block_size 1): 0*inf = NaN instead of the softmax
# expect: NaN|nan|-inf|-∞|1e4|huge
import math

import torch
import torch.nn.functional as F


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model, "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def _z(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def online_softmax(x, block_size):
    n = x.shape[-1]
    nb = -(-n // block_size)
    blocks = F.pad(x, (0, nb * block_size - n), value=-math.inf).unflatten(-1, (nb, block_size))
    bmax = blocks.amax(-1)                                            # (..., nb): one max per block
    bsum = torch.exp(blocks - _z(bmax)[..., None]).sum(-1)            # (..., nb): Σ e^(x - block max)
    m = torch.full_like(x[..., 0], -math.inf)
    l = torch.zeros_like(x[..., 0])
    for b in range(nb):                                               # running combine, block by block
        m_new = torch.maximum(m, bmax[..., b])
        z = _z(m_new)
        l = l * torch.exp(m - z) + bsum[..., b] * torch.exp(_z(bmax[..., b]) - z) * (bmax[..., b] > -math.inf)
        m = m_new
    return torch.exp(x - _z(m)[..., None]) / torch.where(l == 0, torch.ones_like(l), l)[..., None]


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    sc = 1.0 / math.sqrt(q.shape[-1])
    qp = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    m = torch.full_like(q[..., 0], -math.inf)
    l = torch.zeros_like(q[..., 0])
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    for a in range(0, L_k, block_size):
        kb, vb = k[..., a:a + block_size, :], v[..., a:a + block_size, :]
        s = (q @ kb.mT) * sc
        if causal:
            kp = torch.arange(a, a + kb.shape[-2], device=q.device)[None, :]
            s = torch.where(kp <= qp, s, torch.full_like(s, -math.inf))
        m_new = torch.maximum(m, s.amax(-1))
        z = _z(m_new)
        r = torch.exp(m - z)
        p = torch.exp(s - z[..., None])
        l = r * l + p.sum(-1)
        o = r[..., None] * o + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)[..., None]
