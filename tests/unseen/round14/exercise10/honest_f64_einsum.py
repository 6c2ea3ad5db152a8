# lumen-unseen: exercise=10 kind=honest
# method: numerically careful: every dtype upcast to float64 for the running m, l, o (cast back at the end); einsum for the block products; causal via torch.where on a block of positions; math.isqrt-free closed-form crossover
import math

import torch


def attention_cost(L, d_model):
    L, d = int(L), int(d_model)
    mac_core = 2 * L * L * d          # Q K^T and A V
    mac_proj = 4 * L * d * d          # four d x d projections
    mac_ff = 2 * L * d * 4 * d        # d -> 4d -> d
    return {"core_attention": 2 * mac_core, "projections": 2 * mac_proj, "feed_forward": 2 * mac_ff}


def crossover_length(d_model):
    # 4 L^2 d = 24 L d^2  =>  L = 24 d^2 / (4 d)
    return (24 * d_model * d_model) // (4 * d_model)


NEG = float("-inf")


def online_softmax(x, block_size):
    xd = x.to(torch.float64)
    n = xd.shape[-1]
    m = xd.new_full(xd.shape[:-1], NEG)
    l = xd.new_zeros(xd.shape[:-1])
    start = 0
    while start < n:
        blk = xd[..., start:min(n, start + block_size)]
        bm = blk.amax(dim=-1)
        m_new = torch.where(bm > m, bm, m)
        ref = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        l = l * torch.exp(m - ref) + torch.exp(blk - ref[..., None]).sum(dim=-1)
        m = m_new
        start += block_size
    ref = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    denom = torch.where(l > 0, l, torch.ones_like(l))
    return (torch.exp(xd - ref[..., None]) / denom[..., None]).to(x.dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    qd, kd, vd = q.to(torch.float64), k.to(torch.float64), v.to(torch.float64)
    L_q, L_k, dk = qd.shape[-2], kd.shape[-2], qd.shape[-1]
    offset = L_k - L_q
    m = qd.new_full(qd.shape[:-1], NEG)
    l = qd.new_zeros(qd.shape[:-1])
    o = qd.new_zeros(qd.shape[:-1] + (vd.shape[-1],))
    rows = torch.arange(L_q, device=q.device)[:, None] + offset
    for j0 in range(0, L_k, block_size):
        j1 = min(L_k, j0 + block_size)
        s = torch.einsum("...id,...jd->...ij", qd, kd[..., j0:j1, :]) / math.sqrt(dk)
        if causal:
            cols = torch.arange(j0, j1, device=q.device)[None, :]
            s = torch.where(cols <= rows, s, torch.full_like(s, NEG))
        m_new = torch.maximum(m, s.amax(dim=-1))
        ref = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        a = torch.exp(m - ref)
        p = torch.exp(s - ref[..., None])
        l = a * l + p.sum(-1)
        o = a[..., None] * o + torch.einsum("...ij,...jd->...id", p, vd[..., j0:j1, :])
        m = m_new
    out = o / torch.where(l > 0, l, torch.ones_like(l))[..., None]
    return out.to(q.dtype)
