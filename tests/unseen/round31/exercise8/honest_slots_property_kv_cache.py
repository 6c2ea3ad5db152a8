"""Exercise 8 — The KV cache.

KVCache with __slots__ (it is a plain container that gets made once per layer), read-only
properties, and a __repr__ that shows how full it is. kv_cache_bytes is math.prod.
"""

import math

import torch
import torch.nn as nn

__all__ = ["kv_cache_bytes", "KVCache", "CachedGroupedQueryAttention"]


# Given: exercises 5 and 7.


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


def repeat_kv(x, n_rep):
    """Given: (B, H_kv, L, d) -> a new (B, H_kv*n_rep, L, d); output head j is input head j // n_rep."""
    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)


# My part.


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """Bytes of KV cache: 2 (K and V) x layers x KV heads x d_head x tokens x batch x bytes."""
    return math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))


class KVCache:
    """Keys and values of the tokens so far, for one layer; storage allocated once."""

    __slots__ = ("_keys", "_values", "_len")

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self._keys = torch.zeros(shape, dtype=dtype, device=device)
        self._values = torch.zeros(shape, dtype=dtype, device=device)
        self._len = 0

    @property
    def max_len(self) -> int:
        return self._keys.size(2)

    @property
    def dtype(self):
        return self._keys.dtype

    @property
    def device(self):
        return self._keys.device

    def __len__(self):
        return self._len

    def __repr__(self):
        B, H, _, d = self._keys.shape
        return f"KVCache({self._len}/{self.max_len} tokens, B={B}, H_kv={H}, d_head={d}, {self.dtype})"

    def reset(self):
        """Forget every cached token (storage kept)."""
        self._len = 0

    def update(self, k, v):
        """Append k, v (B, H_kv, T_new, d_head); return views of all keys and values so far."""
        start, end = self._len, self._len + k.size(2)
        if end > self.max_len:
            raise ValueError(f"cache overflow: {start} cached + {k.size(2)} new > max_len {self.max_len}")
        self._keys[:, :, start:end] = k
        self._values[:, :, start:end] = v
        self._len = end
        return self._keys[:, :, :end], self._values[:, :, :end]


class CachedGroupedQueryAttention(nn.Module):
    """GQA for generation: each call takes the next tokens; same parameters as exercise 7."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        """Given: exactly exercise 7's layers."""
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
        """x: (B, T_new, D) -> (B, T_new, D); new token i sits at position past + i."""
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        n_rep = self.n_heads // self.n_kv_heads
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, n_rep), repeat_kv(v, n_rep), mask)
        return self.o_proj(y.transpose(1, 2).contiguous().view(B, T, -1))


if __name__ == "__main__":
    print(kv_cache_bytes(32, 32, 128, 4096) == 2**31)
    torch.manual_seed(0)
    m = CachedGroupedQueryAttention(32, 4, 2).eval()
    x = torch.randn(1, 9, 32)
    cache = KVCache(1, 2, 8, 16)
    with torch.no_grad():
        chunks = [m(x[:, a:b], cache) for a, b in ((0, 3), (3, 4), (4, 9))]
        print(cache, torch.allclose(torch.cat(chunks, 1), m(x), atol=1e-5))
