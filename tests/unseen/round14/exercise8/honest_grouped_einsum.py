# lumen-unseen: exercise=8 kind=honest
# method: grouped einsum attention (queries reshaped to (B, H_kv, rep, T, d), no repeat_kv), masked_fill + torch.softmax + zeroing, index-based update
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
    per_token = 2 * n_kv_heads * d_head * bytes_per_value
    return per_token * n_layers * seq_len * batch_size


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.keys = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.zeros_like(self.keys)
        self.max_len = max_len
        self.length = 0

    def __len__(self):
        return self.length

    def reset(self):
        self.length = 0

    def update(self, k, v):
        new = k.shape[2]
        if new + self.length > self.max_len:
            raise ValueError("does not fit")
        sl = slice(self.length, self.length + new)
        self.keys[:, :, sl] = k
        self.values[:, :, sl] = v
        self.length += new
        return self.keys[:, :, : self.length], self.values[:, :, : self.length]


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
        hk, dh = self.n_kv_heads, self.d_head
        rep = self.n_heads // hk
        # query head j = g*rep + r belongs to KV head g
        q = self.q_proj(x).view(B, T, hk, rep, dh).permute(0, 2, 3, 1, 4)  # (B, hk, rep, T, dh)
        k = self.k_proj(x).view(B, T, hk, dh).transpose(1, 2)
        v = self.v_proj(x).view(B, T, hk, dh).transpose(1, 2)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        s = torch.einsum("bgrtd,bgsd->bgrts", q, k) / math.sqrt(dh)
        allowed = torch.arange(past + T, device=x.device)[None, :] <= (past + torch.arange(T, device=x.device))[:, None]
        s = s.masked_fill(~allowed, float("-inf"))
        w = torch.softmax(s, dim=-1).masked_fill(~allowed, 0.0)
        y = torch.einsum("bgrts,bgsd->bgrtd", w, v)  # (B, hk, rep, T, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, T, self.n_heads * dh)
        return self.o_proj(y)
