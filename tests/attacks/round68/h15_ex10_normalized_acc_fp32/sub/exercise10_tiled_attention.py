import math
import torch

def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model,
            "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}

def crossover_length(d_model):
    return 6 * d_model

def online_softmax(x, block_size):
    # running max and sum in log space: lse <- logaddexp(lse, logsumexp(block))
    dt = x.dtype
    xf = x.float() if dt in (torch.float16, torch.bfloat16) else x
    lse = torch.full(xf.shape[:-1] + (1,), float('-inf'), dtype=xf.dtype, device=x.device)
    n = xf.shape[-1]
    for s in range(0, n, block_size):
        b = xf[..., s:s + block_size]
        dead = (b == float('-inf')).all(dim=-1, keepdim=True)
        bl = torch.logsumexp(torch.where(dead, torch.zeros_like(b), b), dim=-1, keepdim=True)
        bl = torch.where(dead, torch.full_like(bl, float('-inf')), bl)
        both = (lse == float('-inf')) & (bl == float('-inf'))
        lse = torch.where(both, lse, torch.logaddexp(torch.where(both, torch.zeros_like(lse), lse),
                                                      torch.where(both, torch.zeros_like(bl), bl)))
    alive = lse != float('-inf')
    out = torch.exp(xf - torch.where(alive, lse, torch.zeros_like(lse)))
    return torch.where(alive, out, torch.zeros_like(out)).to(dt)

def tiled_attention(q, k, v, block_size, causal=False):
    # FlashAttention-1 style: the accumulator o is kept NORMALISED (o = sum p v / l at every step),
    # half-precision inputs accumulated in float32
    dt = q.dtype
    if dt in (torch.float16, torch.bfloat16):
        q, k, v = q.float(), k.float(), v.float()
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = q.shape[-1] ** -0.5
    lead = q.shape[:-2]
    m = q.new_full(lead + (Lq, 1), float('-inf'))
    l = q.new_zeros(lead + (Lq, 1))
    o = q.new_zeros(lead + (Lq, v.shape[-1]))
    qpos = torch.arange(Lq, device=q.device)[:, None] + (Lk - Lq)
    for s in range(0, Lk, block_size):
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = (q @ kb.transpose(-2, -1)) * scale
        if causal:
            kpos = torch.arange(s, s + kb.shape[-2], device=q.device)[None, :]
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        dead = m_new == float('-inf')
        m_safe = torch.where(dead, torch.zeros_like(m_new), m_new)
        alpha = torch.exp(torch.where(m == float('-inf'), m_safe, m) - m_safe)
        p = torch.exp(sc - m_safe)
        l_new = l * alpha + p.sum(dim=-1, keepdim=True)
        l_div = torch.where(l_new == 0, torch.ones_like(l_new), l_new)
        o = (o * (l * alpha) + p @ vb) / l_div
        l, m = l_new, m_new
    return o.to(dt)
