# lumen-unseen: exercise=8 kind=wrong
# mistake: the attention's softmax is computed in float32 (.float()) and cast back, so a float64 model is not float64 all the way
# expect: float64|float32|\.float|precision|dtype|all the way
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
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)
        self.max_len = max_len
        self.n = 0

    def __len__(self):
        return self.n

    def reset(self):
        self.n = 0

    def update(self, k, v):
        t = k.size(2)
        if self.n + t > self.max_len:
            raise ValueError(f"cache full: {self.n} + {t} > {self.max_len}")
        self.k.narrow(2, self.n, t).copy_(k)
        self.v.narrow(2, self.n, t).copy_(v)
        self.n += t
        return self.k.narrow(2, 0, self.n), self.v.narrow(2, 0, self.n)


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
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        qpos = torch.arange(T, device=x.device).unsqueeze(1) + past
        kpos = torch.arange(past + T, device=x.device).unsqueeze(0)
        mask = kpos <= qpos
        s = (q @ k.transpose(-2, -1)).float() / math.sqrt(self.d_head)
        s = s.masked_fill(~mask, float("-inf"))
        w = torch.softmax(s, dim=-1).to(q.dtype)
        y = w @ v
        return self.o_proj(y.transpose(1, 2).reshape(B, T, -1))
