import math

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.reshape(B, L, n_heads, D // n_heads).permute(0, 2, 1, 3)


def merge_heads(x):
    B, H, L, d = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * d)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not a multiple of n_heads={n_heads}")
        self._n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
        self.register_buffer("_causal_cache", torch.zeros(0, 0, dtype=torch.bool), persistent=False)

    def _causal(self, L, device):
        if self._causal_cache.shape[0] < L or self._causal_cache.device != device:
            self._causal_cache = causal_mask(L, device)
        return self._causal_cache[:L, :L]

    def extra_repr(self):
        return f"n_heads={self._n_heads}"

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = (split_heads(t, self._n_heads) for t in self.qkv(x).split(D, dim=-1))
        if mask is None:
            mask = self._causal(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
