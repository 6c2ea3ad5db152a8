"""Exercise 8 — The KV cache with ONE storage tensor (2, B, H_kv, max_len, d_head).

Index 0 of the first axis holds the keys, index 1 the values; `keys` and `values` are properties
returning views of what is filled so far.
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



def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._kv = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._end = 0

    @property
    def capacity(self):
        return self._kv.shape[3]

    @property
    def keys(self):
        return self._kv[0, :, :, : self._end]

    @property
    def values(self):
        return self._kv[1, :, :, : self._end]

    def __len__(self):
        return self._end

    def reset(self):
        self._end = 0

    def update(self, k, v):
        start, end = self._end, self._end + k.shape[-2]
        if end > self.capacity:
            raise ValueError(f"KVCache: {end} tokens would not fit in {self.capacity}")
        self._kv[0, :, :, start:end] = k
        self._kv[1, :, :, start:end] = v
        self._end = end
        return self.keys, self.values


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
        B, T, _ = x.shape
        q = self.q_proj(x).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
        k = self.k_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        v = self.v_proj(x).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        reps = self.n_heads // self.n_kv_heads
        # same as repeat_kv: head j of the output is KV head j // reps
        Bk, Hkv, S, dh = k.shape
        k = k[:, :, None].expand(Bk, Hkv, reps, S, dh).reshape(Bk, Hkv * reps, S, dh)
        v = v[:, :, None].expand(Bk, Hkv, reps, S, dh).reshape(Bk, Hkv * reps, S, dh)
        rows = torch.arange(T, device=x.device).unsqueeze(1) + past
        cols = torch.arange(past + T, device=x.device).unsqueeze(0)
        mask = torch.where(cols <= rows, True, False)  # (T, past + T)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).flatten(2))
