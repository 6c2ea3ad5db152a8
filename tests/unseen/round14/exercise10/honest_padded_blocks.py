# lumen-unseen: exercise=10 kind=honest
# method: pads x / K / V up to a multiple of block_size (x with -inf, K/V with zeros and the padded keys masked), views them as (..., n_blocks, block_size) and loops over the block axis
import math

import torch
import torch.nn.functional as F


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model ** 2, "feed_forward": 16 * L * d_model ** 2}


def crossover_length(d_model):
    return 6 * d_model


def _zero_if_neginf(t):
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def online_softmax(x, block_size):
    n = x.shape[-1]
    nb = -(-n // block_size)
    xp = F.pad(x, (0, nb * block_size - n), value=-math.inf)
    blocks = xp.unflatten(-1, (nb, block_size))          # (..., nb, bs), linear in n
    m = torch.full_like(x[..., 0], -math.inf)
    l = torch.zeros_like(x[..., 0])
    for b in range(nb):
        blk = blocks[..., b, :]
        m_new = torch.maximum(m, blk.amax(-1))
        z = _zero_if_neginf(m_new)
        l = l * torch.exp(m - z) + torch.exp(blk - z[..., None]).sum(-1)
        m = m_new
    z = _zero_if_neginf(m)
    return torch.exp(x - z[..., None]) / torch.where(l == 0, torch.ones_like(l), l)[..., None]


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    nb = -(-L_k // block_size)
    pad = nb * block_size - L_k
    kp = F.pad(k, (0, 0, 0, pad)).unflatten(-2, (nb, block_size))   # (..., nb, bs, d_k)
    vp = F.pad(v, (0, 0, 0, pad)).unflatten(-2, (nb, block_size))   # (..., nb, bs, d_v)
    scale = 1 / math.sqrt(q.shape[-1])
    qpos = (torch.arange(L_q, device=q.device) + L_k - L_q)[:, None]
    m = torch.full_like(q[..., 0], -math.inf)
    l = torch.zeros_like(q[..., 0])
    o = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    for b in range(nb):
        s = q @ kp[..., b, :, :].transpose(-1, -2) * scale
        kpos = torch.arange(b * block_size, (b + 1) * block_size, device=q.device)[None, :]
        hide = kpos >= L_k
        if causal:
            hide = hide | (kpos > qpos)
        s = s.masked_fill(hide, -math.inf)
        m_new = torch.maximum(m, s.amax(-1))
        z = _zero_if_neginf(m_new)
        a = torch.exp(m - z)
        p = torch.exp(s - z[..., None])
        l = l * a + p.sum(-1)
        o = o * a[..., None] + p @ vp[..., b, :, :]
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)[..., None]
