"""Exercise 8, correct but slow: each step re-runs attention over the whole sequence and keeps the last
outputs (quadratic in the tokens cached)."""

import math

import torch
import torch.nn as nn


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
    return weights @ v, weights


def repeat_kv(x, n_rep):
    return x.repeat_interleave(n_rep, dim=1)


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.k = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.v = torch.zeros_like(self.k)
        self.max_len, self.length = max_len, 0
        self.inputs = []  # every token's input so far, to recompute from

    def __len__(self):
        return self.length

    def reset(self):
        self.length = 0
        self.inputs = []

    def update(self, k, v):
        start, end = self.length, self.length + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache is full: {end} > max_len {self.max_len}")
        self.k[:, :, start:end], self.v[:, :, start:end] = k, v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]


class CachedGroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.d_head = n_heads, n_kv_heads, d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def heads(self, proj, x, n):
        B, T, _ = x.shape
        return proj(x).view(B, T, n, self.d_head).transpose(1, 2)

    def attend(self, q, k, v, past):
        B, _, T_new, _ = q.shape
        rep = self.n_heads // self.n_kv_heads
        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=q.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T_new, -1))

    def forward(self, x, cache=None):
        past = 0 if cache is None else len(cache)
        if cache is None:
            everything = x
        else:
            cache.inputs.append(x)
            everything = torch.cat(cache.inputs, dim=1)  # the whole sequence, run again
        q = self.heads(self.q_proj, everything, self.n_heads)
        k, v = self.heads(self.k_proj, everything, self.n_kv_heads), self.heads(self.v_proj, everything, self.n_kv_heads)
        if cache is not None:
            cache.update(k[:, :, past:], v[:, :, past:])
        return self.attend(q, k, v, 0)[:, past:]
