"""Exercise 6 — Multi-head attention.

The module can be built from a frozen config dataclass, and it keeps its causal mask in a
non-persistent buffer (so the state dict holds only qkv and out), rebuilt when a longer
sequence arrives.
"""

import logging
import math
from dataclasses import dataclass

import torch
import torch.nn as nn

log = logging.getLogger(__name__)


# Given: exercises 4 and 5.


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


# My part.


def split_heads(x, n_heads):
    """(B, L, D) -> (B, H, L, d_head): a view, then a transpose."""
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    """(B, H, L, d_head) -> (B, L, H * d_head)."""
    B, H, L, d_head = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)


@dataclass(frozen=True)
class AttentionConfig:
    d_model: int = 768
    n_heads: int = 12
    bias: bool = True
    mask_cache_len: int = 64

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ValueError(f"d_model={self.d_model} is not a multiple of n_heads={self.n_heads}")

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads


class MultiHeadAttention(nn.Module):
    """qkv: Linear(D, 3D), out: Linear(D, D); nothing else in the state dict."""

    def __init__(self, d_model, n_heads, bias=True, mask_cache_len=64):
        super().__init__()
        self.config = AttentionConfig(d_model, n_heads, bias, mask_cache_len)
        self.n_heads = n_heads
        self.d_head = self.config.d_head
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
        self.register_buffer("causal", causal_mask(mask_cache_len), persistent=False)

    @classmethod
    def from_config(cls, cfg: AttentionConfig) -> "MultiHeadAttention":
        return cls(cfg.d_model, cfg.n_heads, cfg.bias, cfg.mask_cache_len)

    def _causal(self, L, device):
        if L > self.causal.size(0) or self.causal.device != device:
            log.debug("rebuilding causal mask for L=%d on %s", L, device)
            self.causal = causal_mask(max(L, self.causal.size(0)), device)
        return self.causal[:L, :L]

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
        y, _ = scaled_dot_product_attention(q, k, v, self._causal(L, x.device) if mask is None else mask)
        return self.out(merge_heads(y))


if __name__ == "__main__":
    m = MultiHeadAttention.from_config(AttentionConfig(d_model=16, n_heads=4, mask_cache_len=4))
    print(m.config, sorted(m.state_dict()))
    x = torch.randn(1, 6, 16)
    print(m(x).shape, m.causal.shape)
