"""Exercise 8 — The KV cache, keeping its token count in a 0-d tensor next to the storage.

The count lives on the cache's device as a long tensor; len() reads it back with .item().
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
    return int(torch.tensor([2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value],
                            dtype=torch.int64).prod().item())


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._count = torch.zeros((), dtype=torch.long, device=self.k.device)

    def __len__(self):
        return int(self._count.item())

    def reset(self):
        self._count.zero_()

    def update(self, k, v):
        start = len(self)
        n_new = k.size(2)
        if start + n_new > self.k.size(2):
            raise ValueError(f"no room: {start} cached + {n_new} new > {self.k.size(2)}")
        end = start + n_new
        self.k[:, :, start:end, :] = k
        self.v[:, :, start:end, :] = v
        self._count += n_new
        return self.k[:, :, :end, :], self.v[:, :, :end, :]


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
        B, T = x.size(0), x.size(1)
        q = self.q_proj(x).view(B, T, self.n_heads, -1).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, -1).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, -1).transpose(1, 2)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        k = repeat_kv(k, self.n_heads // self.n_kv_heads)
        v = repeat_kv(v, self.n_heads // self.n_kv_heads)
        S = k.size(2)
        assert S == past + T, (S, past, T)
        mask = torch.ones(T, S, dtype=torch.bool, device=x.device).tril_(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head)
        return self.o_proj(y)
