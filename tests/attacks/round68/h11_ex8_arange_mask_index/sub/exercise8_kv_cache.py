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
    numbers_per_token = 2 * n_kv_heads * d_head          # keys and values, per layer
    return int(n_layers * numbers_per_token * bytes_per_value * seq_len * batch_size)

class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        # one storage holding keys and values: (2, B, Hkv, max_len, d)
        self._kv = torch.empty(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._pos = 0

    def __len__(self):
        return self._pos

    def reset(self):
        self._pos = 0

    def update(self, k, v):
        t = k.size(-2)
        if self._pos + t > self._kv.size(3):
            raise ValueError(f"KV cache overflow: {self._pos} + {t} > {self._kv.size(3)}")
        self._kv[0, :, :, self._pos:self._pos + t].copy_(k)
        self._kv[1, :, :, self._pos:self._pos + t].copy_(v)
        self._pos += t
        return self._kv[0, :, :, :self._pos], self._kv[1, :, :, :self._pos]

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
        S = k.shape[2]
        qpos = torch.arange(past, past + T, device=x.device)[:, None]; mask = torch.arange(S, device=x.device)[None, :] <= qpos
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))
