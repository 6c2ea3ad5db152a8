# lumen-unseen: exercise=10 kind=honest
# method: keeps a running log-normaliser (log-sum-exp) instead of a max and a sum, updated block by block with torch.logaddexp; the output is kept normalised with weights exp(lse_old - lse_new)
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
    per_token_linear = 2 * d_model * d_model  # one d x d projection of one token
    return {
        "attention": 2 * 2 * L * L * d_model,
        "projections": 4 * L * per_token_linear,
        "feed_forward": 8 * L * per_token_linear,
    }


def crossover_length(d_model):
    """The L where attention's 4·L²·d equals the rest's 24·L·d²: L = 6·d."""
    rest_per_token = 8 * d_model ** 2 + 16 * d_model ** 2  # 24·d² per token
    attention_per_token_per_token = 4 * d_model  # 4·L·d per token
    return rest_per_token // attention_per_token_per_token


def _block_lse(s):
    """log Σ exp(s) over the last axis, safe for rows that are all -inf (gives -inf)."""
    m = s.amax(dim=-1, keepdim=True)
    m0 = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
    return m0 + torch.log(torch.exp(s - m0).sum(dim=-1, keepdim=True))


def online_softmax(x, block_size):
    """Softmax over the last axis, block by block, with a running log-normaliser."""
    lse = torch.full_like(x[..., :1], float("-inf"))
    for start in range(0, x.shape[-1], block_size):
        lse = torch.logaddexp(lse, _block_lse(x[..., start:start + block_size]))
    finite = torch.isfinite(lse)
    return torch.where(finite, torch.exp(x - torch.where(finite, lse, torch.zeros_like(lse))), torch.zeros_like(x))


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d) V over blocks of keys, without the (L_q, L_k) matrix."""
    L_q = q.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1])
    lse = torch.full(q.shape[:-1] + (1,), float("-inf"), dtype=q.dtype, device=q.device)
    out = torch.zeros(q.shape[:-1] + (v.shape[-1],), dtype=q.dtype, device=q.device)
    rows = torch.arange(L_q, device=q.device).view(-1, 1)
    for j in range(0, k.shape[-2], block_size):
        kb, vb = k[..., j:j + block_size, :], v[..., j:j + block_size, :]
        s = torch.matmul(q, kb.transpose(-2, -1)) * scale
        if causal:
            cols = torch.arange(j, j + kb.shape[-2], device=q.device).view(1, -1)
            s = s.masked_fill(cols > rows, float("-inf"))
        blk = _block_lse(s)
        new = torch.logaddexp(lse, blk)
        fin = torch.isfinite(new)
        new0 = torch.where(fin, new, torch.zeros_like(new))
        keep = torch.where(fin, torch.exp(lse - new0), torch.zeros_like(new))
        p = torch.where(fin, torch.exp(s - new0), torch.zeros_like(s))
        out = out * keep + p @ vb
        lse = new
    return out
