# lumen-unseen: exercise=8 kind=honest
# method: one (2, B, H_kv, max_len, d) storage allocated once (keys = [0], values = [1]), slice assignment, tril(diagonal=past) mask, math.prod for the bytes
import math

import torch
import torch.nn as nn


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
    return int(math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value)))


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._store = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._cap = max_len
        self._used = 0

    def __len__(self):
        return self._used

    def reset(self):
        self._used = 0

    def update(self, k, v):
        start = self._used
        end = start + k.shape[-2]
        if end > self._cap:
            raise ValueError("KVCache: appending %d tokens to %d exceeds max_len %d" % (k.shape[-2], start, self._cap))
        self._store[0, :, :, start:end] = k
        self._store[1, :, :, start:end] = v
        self._used = end
        return self._store[0, :, :, :end], self._store[1, :, :, :end]


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

    def _heads(self, t, h):
        B, T, _ = t.shape
        return t.reshape(B, T, h, self.d_head).permute(0, 2, 1, 3)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q = self._heads(self.q_proj(x), self.n_heads)
        k = self._heads(self.k_proj(x), self.n_kv_heads)
        v = self._heads(self.v_proj(x), self.n_kv_heads)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        n_rep = self.n_heads // self.n_kv_heads
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask)
        y = y.permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.d_head)
        return self.o_proj(y)
