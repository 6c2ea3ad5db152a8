# lumen-unseen: exercise=8 kind=honest
# method: functools.reduce for the bytes; F.linear with the module weights; KV heads broadcast with expand+reshape instead of repeat_kv; index_copy_ into storage
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


import functools
import operator

import torch.nn.functional as F


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return functools.reduce(operator.mul, [n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value], 2)


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._shape = (batch_size, n_kv_heads, max_len, d_head)
        self._k = torch.zeros(self._shape, dtype=dtype, device=device)
        self._v = torch.zeros(self._shape, dtype=dtype, device=device)
        self._t = 0

    def __len__(self):
        return self._t

    def reset(self):
        self._t = 0

    def update(self, k, v):
        n = k.shape[2]
        if self._t + n > self._shape[2]:
            raise ValueError("no room in the cache")
        idx = torch.arange(self._t, self._t + n, device=self._k.device)
        self._k.index_copy_(2, idx, k)
        self._v.index_copy_(2, idx, v)
        self._t += n
        return self._k[:, :, : self._t], self._v[:, :, : self._t]


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

    def _expand(self, t):
        B, Hk, L, d = t.shape
        rep = self.n_heads // Hk
        return t[:, :, None].expand(B, Hk, rep, L, d).reshape(B, Hk * rep, L, d)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q = F.linear(x, self.q_proj.weight).unflatten(-1, (self.n_heads, self.d_head)).transpose(1, 2)
        k = F.linear(x, self.k_proj.weight).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        v = F.linear(x, self.v_proj.weight).unflatten(-1, (self.n_kv_heads, self.d_head)).transpose(1, 2)
        if cache is None:
            past = 0
        else:
            past = len(cache)
            k, v = cache.update(k, v)
        mask = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
        out, _ = scaled_dot_product_attention(q, self._expand(k), self._expand(v), mask)
        return F.linear(out.transpose(1, 2).reshape(B, T, -1), self.o_proj.weight)
