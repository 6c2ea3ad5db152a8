# lumen-unseen: exercise=8 kind=honest
# method: half/bf16 scores upcast to float32 for the softmax then cast back (float32/float64 untouched); lazy mask only when more than one new token; update via Tensor.copy_ on a slice view
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
    numbers = 2 * n_kv_heads * d_head            # per token per layer
    return numbers * n_layers * batch_size * seq_len * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.k_cache = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v_cache = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.filled = 0

    @property
    def capacity(self):
        return self.k_cache.shape[2]

    def __len__(self):
        return self.filled

    def reset(self):
        self.filled = 0

    def update(self, k, v):
        a, b = self.filled, self.filled + k.shape[2]
        if b > self.capacity:
            raise ValueError(f"KVCache holds {self.capacity} tokens, {b} requested")
        self.k_cache[:, :, a:b].copy_(k)
        self.v_cache[:, :, a:b].copy_(v)
        self.filled = b
        return self.k_cache[:, :, :b], self.v_cache[:, :, :b]


def _attn(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    if scores.dtype in (torch.float16, torch.bfloat16):
        w = torch.softmax(scores.float(), dim=-1).to(scores.dtype)
    else:
        w = torch.softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)
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
        B, T, D = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        r = self.n_heads // self.n_kv_heads
        if r > 1:
            k, v = repeat_kv(k, r), repeat_kv(v, r)
        mask = None
        if T > 1:  # a single new token sees everything cached: no mask needed
            mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
        y = _attn(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, D))
