# lumen-unseen: exercise=10 kind=honest
# method: FlashAttention-1 style: the running output is kept normalised (o = (l·α·o + P·V) / l_new) at every block; online_softmax pads the row to whole blocks with -inf and views it as (..., n_blocks, block_size)
"""Exercise 10 — Tiled attention: attention without the L x L matrix.

Chapter section: "The cost: attention is quadratic in sequence length".

The core of attention costs about 4·L²·d FLOPs (QKᵀ and A·V, 2·L²·d each) and L² numbers of memory
per head for the scores; the four projections cost 8·L·d² and the feed-forward block 16·L·d². The
crossover, 4L²d = 24Ld², is at L = 6d.

FlashAttention never stores the (L, L) matrix: it walks over blocks of keys and values keeping, for
every query, a running maximum m, a running denominator l and a running output o, rescaling l and o
by exp(m_old - m_new) whenever the maximum grows.

Off limits: the softmax family (torch.softmax, F.softmax, log_softmax, Tensor.softmax, ...) and
torch's fused attention (F.scaled_dot_product_attention, nn.MultiheadAttention).
"""

import math

import torch

def attention_cost(L, d_model):
    """FLOPs of one layer's parts for a sequence of L tokens (2 FLOPs per multiply-add)."""
    d = d_model
    scores = 2 * L * L * d  # Q Kᵀ
    weighted = 2 * L * L * d  # A V
    return {"attention": scores + weighted, "projections": 4 * (2 * L * d * d),
            "feed_forward": 2 * (2 * L * d * (4 * d))}


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    return (24 * d_model * d_model) // (4 * d_model)


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running max and a running sum."""
    n = x.shape[-1]
    n_blocks = -(-n // block_size)  # ceil
    pad = n_blocks * block_size - n
    padded = torch.cat([x, x.new_full(x.shape[:-1] + (pad,), float("-inf"))], dim=-1)
    blocks = padded.reshape(x.shape[:-1] + (n_blocks, block_size))
    run_max = x.new_full(x.shape[:-1], float("-inf"))
    run_sum = x.new_zeros(x.shape[:-1])
    for j in range(n_blocks):
        b = blocks[..., j, :]
        new_max = torch.maximum(run_max, b.max(dim=-1).values)
        ref = new_max.masked_fill(torch.isneginf(new_max), 0.0)
        run_sum = run_sum * torch.exp(run_max - ref) + torch.exp(b - ref.unsqueeze(-1)).sum(dim=-1)
        run_max = new_max
    ref = run_max.masked_fill(torch.isneginf(run_max), 0.0).unsqueeze(-1)
    denom = run_sum.masked_fill(run_sum == 0, 1.0).unsqueeze(-1)
    return torch.exp(x - ref) / denom


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q, L_k = q.shape[-2], k.shape[-2]
    q = q / math.sqrt(q.shape[-1])
    m = q.new_full(q.shape[:-1] + (1,), float("-inf"))
    l = q.new_zeros(q.shape[:-1] + (1,))
    o = q.new_zeros(q.shape[:-1] + (v.shape[-1],))  # kept normalised: o = Σ p v / l
    qi = torch.arange(L_q, device=q.device)[:, None]
    for j in range(0, L_k, block_size):
        s = q @ k[..., j:j + block_size, :].transpose(-1, -2)
        if causal:
            kj = torch.arange(j, min(j + block_size, L_k), device=q.device)[None, :]
            s = torch.where(kj <= qi, s, torch.full_like(s, float("-inf")))
        m_new = torch.maximum(m, s.amax(-1, keepdim=True))
        ref = m_new.masked_fill(torch.isneginf(m_new), 0.0)
        p = torch.exp(s - ref)
        l_old_scaled = l * torch.exp(m - ref)
        l_new = l_old_scaled + p.sum(-1, keepdim=True)
        safe = l_new.masked_fill(l_new == 0, 1.0)
        o = (l_old_scaled * o + p @ v[..., j:j + block_size, :]) / safe
        m, l = m_new, l_new
    return o
