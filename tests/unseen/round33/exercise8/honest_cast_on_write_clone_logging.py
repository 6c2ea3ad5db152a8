"""Exercise 8 — The KV cache, defensive version: casts and copies the new keys before writing.

The new k, v are moved to the cache's dtype and device (a no-op when they already match) and
made contiguous clones before the write, so a caller that edits its own k afterwards cannot
change what is cached. Set KV_DEBUG=1 to log every update.
"""

import math

import torch
import torch.nn as nn


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def repeat_kv(x, n_rep):
    """Given: (B, H_kv, L, d) -> (B, H_kv*n_rep, L, d)."""
    return x.repeat_interleave(n_rep, dim=1)



import logging
import os

logger = logging.getLogger("kv_cache")
KV_DEBUG = bool(int(os.environ.get("KV_DEBUG", "0")))


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    total = 2
    for n in (n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value):
        total *= int(n)
    return total


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = int(max_len)
        self.dtype = dtype
        self.device = torch.device(device) if device is not None else torch.device("cpu")
        self.cache_k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=self.device)
        self.cache_v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=self.device)
        self.seen = 0

    def __len__(self):
        return self.seen

    def reset(self):
        if KV_DEBUG:
            logger.debug("reset after %d tokens", self.seen)
        self.seen = 0

    def update(self, k, v):
        k = k.to(device=self.cache_k.device, dtype=self.cache_k.dtype).clone()
        v = v.to(device=self.cache_v.device, dtype=self.cache_v.dtype).contiguous()
        t_new = k.shape[2]
        lo, hi = self.seen, self.seen + t_new
        if hi > self.max_len:
            raise ValueError(f"KV cache overflow ({hi} > {self.max_len})")
        self.cache_k[:, :, lo:hi].copy_(k)
        self.cache_v[:, :, lo:hi].copy_(v)
        self.seen = hi
        if KV_DEBUG:
            logger.debug("update: +%d tokens -> %d/%d", t_new, hi, self.max_len)
        return self.cache_k[:, :, :hi], self.cache_v[:, :, :hi]


class CachedGroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, cache=None):
        bsz, seqlen, _ = x.shape
        xq = self.q_proj(x).view(bsz, seqlen, self.n_heads, self.d_head).transpose(1, 2)
        xk = self.k_proj(x).view(bsz, seqlen, self.n_kv_heads, self.d_head).transpose(1, 2)
        xv = self.v_proj(x).view(bsz, seqlen, self.n_kv_heads, self.d_head).transpose(1, 2)
        start_pos = 0
        if cache is not None:
            start_pos = len(cache)
            xk, xv = cache.update(xk, xv)
        n_rep = self.n_heads // self.n_kv_heads
        keys = repeat_kv(xk, n_rep)
        values = repeat_kv(xv, n_rep)
        mask = torch.tril(
            torch.ones(seqlen, start_pos + seqlen, dtype=torch.bool, device=x.device),
            diagonal=start_pos,
        )
        out, _ = scaled_dot_product_attention(xq, keys, values, mask)
        out = out.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.o_proj(out)
