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
        self.keys = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.zeros_like(self.keys)
        self.length = 0

    def __len__(self):
        return self.length

    def reset(self):
        self.length = 0

    def update(self, k, v):
        new = k.shape[-2]
        if self.length + new > self.keys.shape[-2]:
            raise ValueError("KV cache is full")
        self.keys.narrow(2, self.length, new).copy_(k)
        self.values.narrow(2, self.length, new).copy_(v)
        self.length += new
        return self.keys.narrow(2, 0, self.length), self.values.narrow(2, 0, self.length)

class CachedGroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0
        assert n_heads % n_kv_heads == 0
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, cache=None):
        B, T, D = x.shape
        if cache is None:
            # no cache: attend within x, through a throw-away cache of exactly T tokens
            cache = KVCache(B, self.n_kv_heads, self.d_head, T, dtype=x.dtype, device=x.device)
        past = len(cache)
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        k, v = cache.update(k, v)
        g = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, g), repeat_kv(v, g)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, D))
