# lumen-unseen: exercise=8 kind=honest
# method: cache=None handled by a throw-away KVCache of exactly T tokens (one code path); mask via torch.where on the scores; manual max-shifted softmax with a guarded denominator
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
    total = 2
    for f in (n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value):
        total *= int(f)
    return total


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = int(max_len)
        self.k_buf = torch.zeros((batch_size, n_kv_heads, self.max_len, d_head), dtype=dtype, device=device)
        self.v_buf = torch.zeros((batch_size, n_kv_heads, self.max_len, d_head), dtype=dtype, device=device)
        self.pos = 0

    def __len__(self):
        return self.pos

    def reset(self):
        self.pos = 0

    def update(self, k, v):
        end = self.pos + k.size(-2)
        if end > self.max_len:
            raise ValueError("KV cache overflow")
        self.k_buf[..., self.pos:end, :] = k
        self.v_buf[..., self.pos:end, :] = v
        self.pos = end
        return self.k_buf[..., :end, :], self.v_buf[..., :end, :]


def _attend(q, k, v, allowed):
    s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(q.shape[-1]))
    s = torch.where(allowed, s, torch.full_like(s, float("-inf")))
    m = s.amax(dim=-1, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(s - m)
    z = e.sum(dim=-1, keepdim=True)
    w = e / torch.where(z > 0, z, torch.ones_like(z))
    return w @ v


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
        if cache is None:
            cache = KVCache(B, self.n_kv_heads, self.d_head, T, dtype=x.dtype, device=x.device)
        past = len(cache)
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        k_all, v_all = cache.update(k, v)
        rep = self.n_heads // self.n_kv_heads
        i = torch.arange(T, device=x.device).view(T, 1)
        j = torch.arange(past + T, device=x.device).view(1, past + T)
        y = _attend(q, repeat_kv(k_all, rep), repeat_kv(v_all, rep), j - i <= past)
        return self.o_proj(y.transpose(1, 2).flatten(2))
