"""Exercise 10 — tiled attention over tiles of queries AND tiles of keys (FlashAttention's loop).

The outer loop takes the queries a tile at a time, the inner loop streams the keys and values
block_size at a time. A tile of scores is (..., q_tile, block_size), never bigger than one block
of scores of all the queries. In causal mode the inner loop stops at the first key block that
lies entirely after the tile's last query: every key from there on is hidden from the whole tile.
"""

import math

import torch

Q_TILE = 1024  # queries per outer tile


def attention_cost(L, d_model):
    return {
        "core_attention": 4 * d_model * L * L,
        "projections": 8 * d_model * d_model * L,
        "feed_forward": 16 * d_model * d_model * L,
    }


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    m = torch.full(x.shape[:-1], -math.inf, dtype=x.dtype, device=x.device)
    l = torch.zeros_like(m)
    for xb in x.split(block_size, dim=-1):
        m_new = torch.maximum(m, xb.amax(-1))
        c = torch.where(torch.isneginf(m_new), 0.0, m_new)
        l = l * torch.exp(m - c) + torch.exp(xb - c.unsqueeze(-1)).sum(-1)
        m = m_new
    c = torch.where(torch.isneginf(m), 0.0, m)
    l = torch.where(l == 0, 1.0, l)
    return torch.exp(x - c.unsqueeze(-1)) / l.unsqueeze(-1)


def _attend_tile(q_t, k, v, first_pos, block_size, causal, scale):
    """Attention of one tile of queries (absolute positions first_pos, first_pos+1, ...)."""
    n_q = q_t.shape[-2]
    L_k = k.shape[-2]
    m = torch.full(q_t.shape[:-1] + (1,), -math.inf, dtype=q_t.dtype, device=q_t.device)
    l = torch.zeros_like(m)
    o = torch.zeros(q_t.shape[:-1] + (v.shape[-1],), dtype=q_t.dtype, device=q_t.device)
    q_pos = torch.arange(first_pos, first_pos + n_q, device=q_t.device).unsqueeze(1)
    last_pos = first_pos + n_q - 1
    for kb0 in range(0, L_k, block_size):
        if causal and kb0 > last_pos:
            break  # this block and all later ones are in the future of every query of the tile
        kb = k[..., kb0:kb0 + block_size, :]
        vb = v[..., kb0:kb0 + block_size, :]
        s = (q_t @ kb.transpose(-2, -1)) * scale
        if causal:
            k_pos = torch.arange(kb0, kb0 + kb.shape[-2], device=q_t.device).unsqueeze(0)
            s = s.masked_fill(k_pos > q_pos, -math.inf)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        c = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
        p = torch.exp(s - c)
        a = torch.exp(m - c)
        l = a * l + p.sum(-1, keepdim=True)
        o = a * o + p @ vb
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    offset = L_k - L_q  # query i sits at position offset + i
    tiles = []
    for q0 in range(0, L_q, Q_TILE):
        q_t = q[..., q0:q0 + Q_TILE, :]
        tiles.append(_attend_tile(q_t, k, v, offset + q0, block_size, causal, scale))
    return tiles[0] if len(tiles) == 1 else torch.cat(tiles, dim=-2)
