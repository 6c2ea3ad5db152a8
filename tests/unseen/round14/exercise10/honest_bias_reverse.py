# lumen-unseen: exercise=10 kind=honest
# method: blocks visited last-to-first with Tensor.narrow in a while loop; causal as an additive 0/-inf bias per block; online_softmax second pass also block by block into a preallocated output
import math

import torch


def attention_cost(L, d_model):
    flops = lambda macs: 2 * macs
    return {
        "core_attention": flops(L * L * d_model) * 2,
        "projections": flops(L * d_model * d_model) * 4,
        "feed_forward": flops(L * d_model * 4 * d_model) * 2,
    }


def crossover_length(d_model):
    L = 1
    # 4 L^2 d = 24 L d^2 has the single positive root 6 d
    L = 24 * d_model // 4
    return L


def _starts_reversed(n, b):
    return list(range(0, n, b))[::-1]


def online_softmax(x, block_size):
    n = x.shape[-1]
    m = x.new_full(x.shape[:-1] + (1,), -math.inf)
    l = x.new_zeros(x.shape[:-1] + (1,))
    for s in _starts_reversed(n, block_size):
        w = min(block_size, n - s)
        blk = x.narrow(-1, s, w)
        m_new = torch.maximum(m, blk.amax(-1, keepdim=True))
        sh = torch.where(torch.isneginf(m_new), 0.0, m_new)
        l = l * torch.exp(m - sh) + torch.exp(blk - sh).sum(-1, keepdim=True)
        m = m_new
    sh = torch.where(torch.isneginf(m), 0.0, m)
    inv = 1.0 / torch.where(l == 0, 1.0, l)
    out = torch.empty_like(x)
    s = 0
    while s < n:
        w = min(block_size, n - s)
        out[..., s:s + w] = torch.exp(x.narrow(-1, s, w) - sh) * inv
        s += w
    return out


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.shape[-2], k.shape[-2]
    inv_sqrt = 1.0 / math.sqrt(q.shape[-1])
    m = q.new_full(q.shape[:-1] + (1,), -math.inf)
    l = q.new_zeros(q.shape[:-1] + (1,))
    acc = q.new_zeros(q.shape[:-1] + (v.shape[-1],))
    q_at = (torch.arange(L_q, device=q.device) + (L_k - L_q)).unsqueeze(1)
    for s in _starts_reversed(L_k, block_size):
        w = min(block_size, L_k - s)
        kb, vb = k.narrow(-2, s, w), v.narrow(-2, s, w)
        sc = (q @ kb.transpose(-2, -1)) * inv_sqrt
        if causal:
            k_at = torch.arange(s, s + w, device=q.device).unsqueeze(0)
            bias = torch.zeros(k_at.shape[-1], dtype=q.dtype, device=q.device).expand(L_q, w)
            bias = bias.masked_fill(k_at > q_at, -math.inf)
            sc = sc + bias
        m_new = torch.maximum(m, sc.amax(-1, keepdim=True))
        sh = torch.where(torch.isneginf(m_new), 0.0, m_new)
        r = torch.exp(m - sh)
        p = torch.exp(sc - sh)
        l = r * l + p.sum(-1, keepdim=True)
        acc = r * acc + p @ vb
        m = m_new
    return acc / torch.where(l == 0, 1.0, l)
