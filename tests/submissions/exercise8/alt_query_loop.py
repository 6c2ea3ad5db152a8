"""Exercise 8 — The KV cache: one new token at a time, with query groups instead of repeat_kv.

Diagnosis: none.
"""

import math

import torch
import torch.nn as nn


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    numbers = n_layers * n_kv_heads * d_head * seq_len * batch_size
    return numbers * 2 * bytes_per_value  # keys and values


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        size = (batch_size, n_kv_heads, max_len, d_head)
        self.storage = {"k": torch.zeros(size, dtype=dtype, device=device),
                        "v": torch.zeros(size, dtype=dtype, device=device)}
        self.capacity = max_len
        self.used = 0

    def __len__(self):
        return self.used

    def reset(self):
        self.used = 0

    def update(self, k, v):
        new = k.size(-2)
        if new + self.used > self.capacity:
            raise ValueError("KVCache overflow")
        for name, value in (("k", k), ("v", v)):
            self.storage[name][:, :, self.used:self.used + new].copy_(value)
        self.used += new
        return self.storage["k"][:, :, :self.used], self.storage["v"][:, :, :self.used]


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
        G, dh = self.n_kv_heads, self.d_head
        rep = self.n_heads // G
        # queries grouped by the KV head they read: (B, G, rep, T, dh)
        q = self.q_proj(x).view(B, T, G, rep, dh).permute(0, 2, 3, 1, 4)
        k = self.k_proj(x).view(B, T, G, dh).transpose(1, 2)  # (B, G, T, dh)
        v = self.v_proj(x).view(B, T, G, dh).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)  # (B, G, past + T, dh)
        outputs = []
        for i in range(T):  # new token i sees keys 0 .. past + i: no mask needed
            visible_k = k[:, :, None, :past + i + 1]  # (B, G, 1, S, dh)
            visible_v = v[:, :, None, :past + i + 1]
            scores = (q[:, :, :, i:i + 1] @ visible_k.transpose(-2, -1)) / math.sqrt(dh)  # (B, G, rep, 1, S)
            outputs.append(torch.softmax(scores, dim=-1) @ visible_v)  # (B, G, rep, 1, dh)
        y = torch.cat(outputs, dim=3)  # (B, G, rep, T, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, T, self.n_heads * dh)  # heads in order g*rep + r
        return self.o_proj(y)
