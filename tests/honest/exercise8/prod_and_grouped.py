import math

import torch
import torch.nn as nn


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    return math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.keys = torch.empty(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.empty_like(self.keys)
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        end = self.n + k.shape[-2]
        if end > self.keys.shape[2]:
            raise ValueError(f"no room: {self.n} + {k.shape[-2]} > {self.keys.shape[2]}")
        self.keys[:, :, self.n:end].copy_(k)
        self.values[:, :, self.n:end].copy_(v)
        self.n = end
        return self.keys[:, :, :end], self.values[:, :, :end]


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
        G, R, d = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
        q = self.q_proj(x).view(B, T, G, R, d).permute(0, 2, 3, 1, 4)  # (B, G, R, T, d)
        k = self.k_proj(x).view(B, T, G, d).transpose(1, 2)  # (B, G, T, d)
        v = self.v_proj(x).view(B, T, G, d).transpose(1, 2)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        positions = torch.arange(past + T, device=x.device)
        allowed = positions[None, :] <= (past + torch.arange(T, device=x.device))[:, None]  # (T, past + T)
        scores = torch.einsum("bgrtd,bgsd->bgrts", q, k) / math.sqrt(d)
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        y = torch.einsum("bgrts,bgsd->bgrtd", weights, v)
        return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, T, -1))
