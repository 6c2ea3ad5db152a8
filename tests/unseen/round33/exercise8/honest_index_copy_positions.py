"""Exercise 8 — The KV cache, written with index_copy_ at explicit token positions."""

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



def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """2 (K and V) x layers x KV heads x d_head x tokens x batch x bytes per number."""
    numbers_per_token_per_layer = 2 * n_kv_heads * d_head
    return numbers_per_token_per_layer * n_layers * seq_len * batch_size * bytes_per_value


class KVCache:
    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = max_len
        self.keys = torch.zeros(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.values = torch.zeros_like(self.keys)
        self.n_tokens = 0

    def __len__(self):
        return self.n_tokens

    def reset(self):
        self.n_tokens = 0

    def update(self, k, v):
        t_new = k.size(2)
        if self.n_tokens + t_new > self.max_len:
            raise ValueError(
                f"cannot append {t_new} tokens: {self.n_tokens} cached, room for {self.max_len}"
            )
        positions = torch.arange(self.n_tokens, self.n_tokens + t_new, device=self.keys.device)
        self.keys.index_copy_(2, positions, k)      # writes rows n_tokens .. n_tokens + t_new - 1
        self.values.index_copy_(2, positions, v)
        self.n_tokens += t_new
        return self.keys[:, :, : self.n_tokens], self.values[:, :, : self.n_tokens]


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

    def _heads(self, t, n):
        B, T, _ = t.shape
        return t.view(B, T, n, self.d_head).permute(0, 2, 1, 3)  # (B, n, T, d_head)

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        q = self._heads(self.q_proj(x), self.n_heads)
        k = self._heads(self.k_proj(x), self.n_kv_heads)
        v = self._heads(self.v_proj(x), self.n_kv_heads)

        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)

        n_rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)

        # query i sits at position past + i and may see key positions 0 .. past + i
        q_pos = torch.arange(past, past + T, device=x.device)
        k_pos = torch.arange(past + T, device=x.device)
        mask = k_pos[None, :] <= q_pos[:, None]  # (T, past + T)

        y, _ = scaled_dot_product_attention(q, k, v, mask)
        y = y.permute(0, 2, 1, 3).reshape(B, T, self.n_heads * self.d_head)
        return self.o_proj(y)
