import math
import torch

def attention_cost(L, d_model):
    L, d = int(L), int(d_model)
    core = 2 * (2 * L * L * d)                 # two L*L*d products, 2 FLOPs per multiply-add
    proj = 4 * (2 * L * d * d)
    ff = 2 * (2 * L * d * 4 * d)
    return {"core_attention": core, "projections": proj, "feed_forward": ff}

def crossover_length(d_model):
    # 4 L^2 d = 24 L d^2  ->  L = 6 d
    return (24 * d_model * d_model) // (4 * d_model)

def online_softmax(x, block_size):
    n = x.shape[-1]
    m = None
    l = None
    for s in range(0, n, block_size):
        b = x[..., s:s + block_size]
        bm = b.amax(dim=-1, keepdim=True)
        if m is None:
            m_new = bm
        else:
            m_new = torch.maximum(m, bm)
        safe = m_new.masked_fill(m_new == float('-inf'), 0)
        part = torch.exp(b - safe).sum(dim=-1, keepdim=True)
        if l is None:
            l = part
        else:
            old = m.masked_fill(m == float('-inf'), 0)
            l = l * torch.exp(torch.where(m == float('-inf'), safe, old) - safe) + part
        m = m_new
    safe = m.masked_fill(m == float('-inf'), 0)
    return torch.exp(x - safe) / l.masked_fill(l == 0, 1)

def _one_query_block(q, k, v, block_size, causal, q0, Lq, Lk, scale):
    lq = q.shape[-2]
    m = torch.full(q.shape[:-1] + (1,), float('-inf'), dtype=q.dtype, device=q.device)
    l = torch.zeros_like(m)
    o = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    qpos = (Lk - Lq) + q0 + torch.arange(lq, device=q.device).unsqueeze(-1)
    for s in range(0, Lk, block_size):
        if causal and s > (Lk - Lq) + q0 + lq - 1:
            break                                   # every later key is in the future of every query here
        kb, vb = k[..., s:s + block_size, :], v[..., s:s + block_size, :]
        sc = torch.matmul(q, kb.transpose(-2, -1)) * scale
        if causal:
            kpos = s + torch.arange(kb.shape[-2], device=q.device)
            sc = sc.masked_fill(kpos > qpos, float('-inf'))
        m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
        safe = m_new.masked_fill(m_new == float('-inf'), 0)
        alpha = torch.exp(torch.where(m == float('-inf'), safe, m) - safe)
        p = torch.exp(sc - safe)
        l = alpha * l + p.sum(dim=-1, keepdim=True)
        o = alpha * o + torch.matmul(p, vb)
        m = m_new
    return o / l.masked_fill(l == 0, 1)

def tiled_attention(q, k, v, block_size, causal=False):
    # tiles over the queries too (block_size queries at a time), skipping fully future key blocks
    Lq, Lk = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    outs = []
    for q0 in range(0, Lq, block_size):
        outs.append(_one_query_block(q[..., q0:q0 + block_size, :], k, v, block_size, causal, q0, Lq, Lk, scale))
    return torch.cat(outs, dim=-2)
