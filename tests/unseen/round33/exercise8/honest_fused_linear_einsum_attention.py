"""Exercise 8 — The KV cache; the layer runs its three input projections as one F.linear.

The q/k/v weights stay in q_proj, k_proj and v_proj (so exercise 7's state dict loads); forward
stacks them for a single GEMM. The cache writes with a small helper that assigns into slices.
"""

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



import torch.nn.functional as F


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    bytes_per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_value  # all layers, K and V
    return bytes_per_token * seq_len * batch_size


def _write(store, start, new):
    """store[:, :, start:start+T] = new, in place; returns the end position."""
    end = start + new.shape[2]
    store[:, :, start:end] = new
    return end


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = max_len
        self.k_buf = torch.zeros((batch_size, n_kv_heads, max_len, d_head), dtype=dtype, device=device)
        self.v_buf = torch.zeros((batch_size, n_kv_heads, max_len, d_head), dtype=dtype, device=device)
        self.cur = 0

    def __len__(self):
        return self.cur

    def reset(self):
        self.cur = 0

    def update(self, k, v):
        if self.cur + k.shape[2] > self.max_len:
            raise ValueError("KVCache is full")
        _write(self.k_buf, self.cur, k)
        self.cur = _write(self.v_buf, self.cur, v)
        return self.k_buf[:, :, : self.cur], self.v_buf[:, :, : self.cur]


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
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        w = torch.cat([self.q_proj.weight, self.k_proj.weight, self.v_proj.weight], dim=0)
        q, k, v = F.linear(x, w).split([H * dh, Hkv * dh, Hkv * dh], dim=-1)
        q = q.view(B, T, H, dh).transpose(1, 2)
        k = k.view(B, T, Hkv, dh).transpose(1, 2)
        v = v.view(B, T, Hkv, dh).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        k, v = repeat_kv(k, H // Hkv), repeat_kv(v, H // Hkv)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = torch.einsum("bhtd->bthd", y).reshape(B, T, H * dh)
        return self.o_proj(y)
