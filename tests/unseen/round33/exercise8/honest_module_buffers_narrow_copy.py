"""Exercise 8 — The KV cache as an nn.Module with registered buffers, filled with narrow().copy_()."""

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



def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    factors = (2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value)
    return math.prod(factors)


class KVCache(nn.Module):
    """Buffers follow the module on .to(device); they are not saved in the state dict."""

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        super().__init__()
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.register_buffer("k_cache", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape, dtype=dtype, device=device), persistent=False)
        self.max_len = max_len
        self._filled = 0

    def __len__(self):
        return self._filled

    def reset(self):
        self._filled = 0

    def update(self, k, v):
        n = k.shape[-2]
        start = self._filled
        if start + n > self.max_len:
            raise ValueError("KVCache overflow: %d + %d > %d" % (start, n, self.max_len))
        self.k_cache.narrow(2, start, n).copy_(k)
        self.v_cache.narrow(2, start, n).copy_(v)
        self._filled = start + n
        return self.k_cache.narrow(2, 0, self._filled), self.v_cache.narrow(2, 0, self._filled)


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
        B, T, D = x.shape
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        q = self.q_proj(x).view(B, T, H, dh).transpose(1, 2)
        k = self.k_proj(x).view(B, T, Hkv, dh).transpose(1, 2)
        v = self.v_proj(x).view(B, T, Hkv, dh).transpose(1, 2)
        if cache is None:
            past = 0
        else:
            past = len(cache)
            k, v = cache.update(k, v)
        k = repeat_kv(k, H // Hkv)
        v = repeat_kv(v, H // Hkv)
        allowed = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
        out, _ = scaled_dot_product_attention(q, k, v, allowed)
        return self.o_proj(out.transpose(1, 2).reshape(B, T, H * dh))
