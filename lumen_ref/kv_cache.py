"""The KV cache from the chapter's preview: keys and values kept, not recomputed, while decoding.

`CachedGroupedQueryAttention` has exactly `GroupedQueryAttention`'s parameters, so the same state
dict loads into both, and feeding a sequence in any chunking gives the same outputs as attending to
the whole sequence at once.
"""

import torch

from lumen_ref.attention import GroupedQueryAttention, scaled_dot_product_attention


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """Bytes to cache keys AND values (the 2) for every layer, KV head and token."""
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    """Keys and values of the tokens seen so far, in storage allocated once for max_len tokens."""

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)  # (B, Hkv, max_len, dh)
        self.v = torch.zeros(shape, dtype=dtype, device=device)  # (B, Hkv, max_len, dh)
        self.max_len = max_len
        self.length = 0  # tokens cached so far

    def __len__(self):
        return self.length

    def reset(self):
        """Forget every cached token; the storage is kept for the next sequence."""
        self.length = 0

    def update(self, k, v):
        """Append k, v (B, Hkv, T_new, dh); return all keys and values so far (B, Hkv, T, dh)."""
        start, end = self.length, self.length + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}")
        self.k[:, :, start:end] = k  # write into the preallocated storage: no copy of the past
        self.v[:, :, start:end] = v
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)


class CachedGroupedQueryAttention(GroupedQueryAttention):
    """GQA for generation: each call takes the next T_new tokens and attends to all cached ones."""

    def forward(self, x, cache=None):
        B, T_new, _ = x.shape
        q = self.q_proj(x).view(B, T_new, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, T_new, dh)
        k = self.k_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, T_new, dh)
        v = self.v_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, T_new, dh)
        past = 0 if cache is None else len(cache)  # tokens already cached
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)
        rep = self.n_heads // self.n_kv_heads
        k = k.repeat_interleave(rep, dim=1)  # (B, H, past + T_new, dh)
        v = v.repeat_interleave(rep, dim=1)
        # new token i sits at position past + i and may see keys 0 .. past + i
        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device).tril(diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T_new, dh)
        y = y.transpose(1, 2).contiguous().view(B, T_new, -1)  # (B, T_new, H*dh)
        return self.o_proj(y)  # (B, T_new, D)
