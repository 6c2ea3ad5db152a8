"""Exercise 6 — Multi-head attention.

split_heads / merge_heads with Tensor.unflatten and Tensor.flatten (same views as view/transpose,
but they spell out which dim is being cut or joined).
"""

from __future__ import annotations

import math
from typing import Optional

import torch
import torch.nn as nn

__all__ = ["causal_mask", "scaled_dot_product_attention", "split_heads", "merge_heads", "MultiHeadAttention"]


# Given: exercises 4 and 5 (see the stub's note); torch.softmax is allowed from here on.


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


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, L, D) -> (B, H, L, D // H): a view of x, heads as a batch dim."""
    B, L, D = x.shape
    assert D % n_heads == 0, f"D={D} is not divisible by n_heads={n_heads}"
    return x.unflatten(-1, (n_heads, D // n_heads)).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, H, L, d_head) -> (B, L, H * d_head), head 0's numbers first for each token."""
    return x.transpose(1, 2).flatten(start_dim=2)  # flatten copies when x is not contiguous


class MultiHeadAttention(nn.Module):
    """The chapter's multi-head self-attention: a fused qkv linear, then W_O."""

    def __init__(self, d_model: int, n_heads: int, bias: bool = True) -> None:
        super().__init__()
        assert d_model % n_heads == 0, f"d_model={d_model} must divide evenly into {n_heads} heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    @property
    def d_model(self) -> int:
        return self.n_heads * self.d_head

    def extra_repr(self) -> str:
        return f"n_heads={self.n_heads}, d_head={self.d_head}"

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, L, D = x.shape
        q, k, v = (split_heads(t, self.n_heads) for t in self.qkv(x).split(D, dim=-1))
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        return self.out(merge_heads(y))


if __name__ == "__main__":
    torch.manual_seed(0)
    mha = MultiHeadAttention(32, 4)
    print(mha)
    x = torch.randn(2, 7, 32)
    assert torch.equal(merge_heads(split_heads(x, 4)), x)
    print(mha(x).shape)
