# lumen-unseen: exercise=10 kind=wrong
# mistake: tiles the QUERIES (block_size at a time) and reads all L_k keys at once for each query block, with an exact max-shifted softmax per block of queries: memory L·block_size, values right, but K and V are not read block_size keys at a time and there is no running m, l, o
# expect: key|K and V|keys at a time|block of keys|running|(L_q, block_size)|L_k
import math

import torch


def attention_cost(L, d_model):
    return {
        "core_attention": 4 * L * L * d_model,
        "projections": 8 * L * d_model * d_model,
        "feed_forward": 16 * L * d_model * d_model,
    }


def crossover_length(d_model):
    return 6 * d_model


def _finite_or_zero(m):
    return torch.where(m == float("-inf"), torch.zeros_like(m), m)


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = torch.full(x.shape[:-1] + (1,), float("-inf"), dtype=x.dtype, device=x.device)
    l = torch.zeros(x.shape[:-1] + (1,), dtype=x.dtype, device=x.device)
    for start in range(0, n, block_size):
        blk = x[..., start:start + block_size]
        m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)
        l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = _finite_or_zero(m)
    return torch.exp(x - shift) / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    kpos = torch.arange(L_k, device=q.device).unsqueeze(0)
    outs = []
    for a in range(0, L_q, block_size):
        qb = q[..., a:a + block_size, :]
        s = (qb @ k.transpose(-2, -1)) * scale                 # (..., block, L_k)
        if causal:
            qpos = torch.arange(a, a + qb.shape[-2], device=q.device).unsqueeze(-1) + (L_k - L_q)
            s = s.masked_fill(kpos > qpos, float("-inf"))
        mx = _finite_or_zero(s.amax(dim=-1, keepdim=True))
        e = torch.exp(s - mx)
        z = e.sum(dim=-1, keepdim=True)
        outs.append((e / torch.where(z == 0, torch.ones_like(z), z)) @ v)
    return torch.cat(outs, dim=-2)
