# lumen-unseen: exercise=10 kind=honest
# method: tiles queries as well as keys (both block_size), skips key blocks wholly in a query tile's future (causal early break), zero tile for queries that see nothing; online_softmax over a Python list of (start, stop) bounds
import math

import torch


def attention_cost(L, d_model):
    core = 2 * (2 * L * L * d_model)
    proj = 2 * (4 * L * d_model * d_model)
    ff = 2 * (2 * L * d_model * 4 * d_model)
    return {"core_attention": core, "projections": proj, "feed_forward": ff}


def crossover_length(d_model):
    return 6 * int(d_model)


def _bounds(n, b):
    return [(a, min(a + b, n)) for a in range(0, n, b)]


def online_softmax(x, block_size):
    n = x.size(-1)
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(x[..., :1])
    for a, b in _bounds(n, block_size):
        chunk = x[..., a:b]
        m2 = torch.maximum(m, chunk.max(dim=-1, keepdim=True).values)
        base = torch.where(torch.isfinite(m2), m2, torch.zeros_like(m2))
        l = l * torch.exp(m - base) + torch.exp(chunk - base).sum(dim=-1, keepdim=True)
        m = m2
    base = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    return torch.exp(x - base) / torch.where(l > 0, l, torch.ones_like(l))


def _one_query_tile(qt, k, v, pos0, block_size, causal, scale):
    # qt: (..., t, d_k), query positions pos0 .. pos0 + t - 1
    t = qt.size(-2)
    m = torch.full_like(qt[..., :1], float("-inf"))
    l = torch.zeros_like(qt[..., :1])
    o = qt.new_zeros(qt.shape[:-1] + (v.size(-1),))
    qpos = torch.arange(pos0, pos0 + t, device=qt.device)[:, None]
    for a, b in _bounds(k.size(-2), block_size):
        if causal and a > pos0 + t - 1:
            break  # every key from here on is in the future of every query of this tile
        s = qt @ k[..., a:b, :].transpose(-2, -1) * scale
        if causal and b - 1 > pos0:
            kpos = torch.arange(a, b, device=qt.device)[None, :]
            s = s.masked_fill(kpos > qpos, float("-inf"))
        m2 = torch.maximum(m, s.max(dim=-1, keepdim=True).values)
        base = torch.where(torch.isfinite(m2), m2, torch.zeros_like(m2))
        c = torch.exp(m - base)
        p = torch.exp(s - base)
        l = l * c + p.sum(dim=-1, keepdim=True)
        o = o * c + p @ v[..., a:b, :]
        m = m2
    return o / torch.where(l > 0, l, torch.ones_like(l))


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    scale = 1.0 / math.sqrt(q.size(-1))
    tiles = []
    for a, b in _bounds(L_q, block_size):
        pos0 = L_k - L_q + a
        tiles.append(_one_query_tile(q[..., a:b, :], k, v, pos0, block_size, causal, scale))
    return torch.cat(tiles, dim=-2)
