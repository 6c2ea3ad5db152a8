import math

import torch
import torch.nn as nn


class CacheFullError(ValueError):
    """The cache has no room for the new tokens."""


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._kind = dtype
        self._max_len = max_len
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self._keys = torch.zeros(shape, dtype=dtype, device=device)
        self._values = torch.zeros(shape, dtype=dtype, device=device)
        self._filled = 0

    @property
    def filled(self):
        return self._filled

    @filled.setter
    def filled(self, n):
        if not 0 <= n <= self._max_len:
            raise CacheFullError(f"{n} tokens do not fit in max_len={self._max_len}")
        self._filled = n

    def __len__(self):
        return self.filled

    def __repr__(self):
        return f"KVCache({self.filled}/{self._max_len} tokens, {self._kind})"

    def reset(self):
        self.filled = 0

    def update(self, k, v):
        start = self.filled
        self.filled = start + k.size(2)  # raises before anything is written
        self._keys[:, :, start:self.filled] = k
        self._values[:, :, start:self.filled] = v
        return self._keys[:, :, :self.filled], self._values[:, :, :self.filled]


class CachedGroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head))
