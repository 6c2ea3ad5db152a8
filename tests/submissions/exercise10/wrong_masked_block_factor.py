"""Exercise 10 where tiled_attention softmaxes each block against its own max, then rescales the block's
sums to the running max by exp(block max - running max); a block with no visible key (causal) has no
max, so the student takes 0, and exp(0 - running max) overflows when every score is very negative.

Diagnosis: masked-block-factor-overflows.
"""

import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):
    m = torch.full_like(x[..., :1], -math.inf)
    l = torch.zeros_like(m)
    for start in range(0, x.size(-1), block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(-1, keepdim=True))
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        l = l * torch.exp(m - safe) + torch.exp(block - safe).sum(-1, keepdim=True)
        m = m_new
    safe = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    return torch.exp(x - safe) / torch.where(l > 0, l, torch.ones_like(l))


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], -math.inf)
    l = torch.zeros_like(m)
    o = torch.zeros(*q.shape[:-1], v.size(-1), dtype=q.dtype, device=q.device)
    query_pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        s = q @ kb.transpose(-2, -1) / math.sqrt(q.size(-1))
        if causal:
            s = s.masked_fill(torch.arange(start, start + kb.size(-2), device=q.device) > query_pos, -math.inf)
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        block_max = s.amax(-1, keepdim=True)
        block_max = torch.where(torch.isinf(block_max), torch.zeros_like(block_max), block_max)
        local = torch.exp(s - block_max)  # the block's own softmax numerators
        safe = torch.where(torch.isinf(m_new), torch.zeros_like(m_new), m_new)
        old = torch.exp(m - safe)
        to_running = torch.exp(block_max - safe)  # brings the block's sums to the running max
        l = l * old + to_running * local.sum(-1, keepdim=True)
        o = o * old + to_running * (local @ vb)
        m = m_new
    return o / torch.where(l > 0, l, torch.ones_like(l))
