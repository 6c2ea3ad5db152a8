"""Exercise 8 — The KV cache, with einsum, index_copy_ and a mask built from positions.

Diagnosis: none.
"""

import math

import torch
import torch.nn as nn


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    per_token = math.prod([2, n_layers, n_kv_heads, d_head])  # keys and values, every layer
    return per_token * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.keys = torch.empty(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.empty_like(self.keys)
        self.max_len = max_len
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        T_new = k.shape[2]
        if self.n + T_new > self.max_len:
            raise ValueError(f"no room for {T_new} more tokens ({self.n} of {self.max_len} used)")
        where = torch.arange(self.n, self.n + T_new, device=self.keys.device)
        self.keys.index_copy_(2, where, k.to(self.keys.dtype))
        self.values.index_copy_(2, where, v.to(self.values.dtype))
        self.n += T_new
        return self.keys.narrow(2, 0, self.n), self.values.narrow(2, 0, self.n)


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
        B, T_new, _ = x.shape
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        q = self.q_proj(x).reshape(B, T_new, H, dh)
        k = self.k_proj(x).reshape(B, T_new, Hkv, dh).permute(0, 2, 1, 3)
        v = self.v_proj(x).reshape(B, T_new, Hkv, dh).permute(0, 2, 1, 3)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        S = k.shape[2]
        rep = H // Hkv
        k = k[:, :, None].expand(B, Hkv, rep, S, dh).reshape(B, H, S, dh)
        v = v[:, :, None].expand(B, Hkv, rep, S, dh).reshape(B, H, S, dh)
        scores = torch.einsum("bqhd,bhkd->bhqk", q, k) / math.sqrt(dh)
        query_pos = past + torch.arange(T_new, device=x.device)[:, None]  # where each new token sits
        key_pos = torch.arange(S, device=x.device)[None, :]
        allowed = key_pos <= query_pos  # (T_new, S)
        scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=x.device))
        weights = torch.softmax(scores, dim=-1)
        y = torch.einsum("bhqk,bhkd->bqhd", weights, v).reshape(B, T_new, H * dh)
        return self.o_proj(y)
