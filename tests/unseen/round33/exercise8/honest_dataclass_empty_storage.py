"""Exercise 8 — The KV cache as a dataclass (storage made in __post_init__ with torch.empty)."""

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



from dataclasses import dataclass, field
from typing import Optional


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_value
    return per_token * seq_len * batch_size


@dataclass(eq=False)
class KVCache:
    batch_size: int
    n_kv_heads: int
    d_head: int
    max_len: int
    dtype: torch.dtype = torch.float32
    device: Optional[torch.device] = None
    length: int = field(default=0, init=False)
    k_store: torch.Tensor = field(init=False, repr=False)
    v_store: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self):
        shape = (self.batch_size, self.n_kv_heads, self.max_len, self.d_head)
        # never read before it is written, so it need not be zeroed
        self.k_store = torch.empty(shape, dtype=self.dtype, device=self.device)
        self.v_store = torch.empty(shape, dtype=self.dtype, device=self.device)

    def __len__(self):
        return self.length

    def reset(self):
        self.length = 0

    def update(self, k, v):
        assert k.shape == v.shape, "keys and values must have the same shape"
        new_len = self.length + k.shape[2]
        if new_len > self.max_len:
            raise ValueError(f"KVCache holds at most {self.max_len} tokens, asked for {new_len}")
        self.k_store[:, :, self.length:new_len, :] = k
        self.v_store[:, :, self.length:new_len, :] = v
        self.length = new_len
        return self.k_store[:, :, :new_len, :], self.v_store[:, :, :new_len, :]


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

    def forward(self, x, cache: Optional[KVCache] = None):
        B, T, _ = x.shape
        split = lambda t, n: t.reshape(B, T, n, self.d_head).transpose(1, 2)
        q = split(self.q_proj(x), self.n_heads)
        k = split(self.k_proj(x), self.n_kv_heads)
        v = split(self.v_proj(x), self.n_kv_heads)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        group = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, group), repeat_kv(v, group)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
        y, _ = scaled_dot_product_attention(q, k, v, mask=mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, -1))
