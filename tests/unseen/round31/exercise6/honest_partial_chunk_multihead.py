"""Exercise 6 — Multi-head attention.

Variant with permute/reshape and Tensor.chunk, and a functools.partial for the causal default.
MHA_DEBUG=1 (environment) turns on a NaN check of the output with a warning.
"""

import functools
import math
import os
import warnings

import torch
import torch.nn as nn

MHA_DEBUG = os.getenv("MHA_DEBUG", "") == "1"


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
    """(B, L, D) -> (B, H, L, d_head) as a view of x."""
    match x.shape:
        case (B, L, D) if D % n_heads == 0:
            return x.view(B, L, n_heads, D // n_heads).permute(0, 2, 1, 3)
        case shape:
            raise ValueError(f"expected (B, L, D) with D divisible by {n_heads}, got {tuple(shape)}")


def merge_heads(x):
    """(B, H, L, d_head) -> (B, L, H * d_head); works on non-contiguous input."""
    B, H, L, d_head = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * d_head)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"{d_model=} must be a multiple of {n_heads=}")
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
        self._split = functools.partial(split_heads, n_heads=n_heads)

    def forward(self, x, mask=None):
        """(B, L, D) -> (B, L, D); mask None means causal, a given mask replaces it."""
        L = x.size(1)
        q, k, v = map(self._split, self.qkv(x).chunk(3, dim=-1))
        mask = causal_mask(L, device=x.device) if mask is None else mask
        heads, _ = scaled_dot_product_attention(q, k, v, mask=mask)
        y = self.out(merge_heads(heads))
        if MHA_DEBUG and torch.isnan(y).any():
            warnings.warn("MultiHeadAttention produced NaN", RuntimeWarning, stacklevel=2)
        return y


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--d-model", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--L", type=int, default=256)
    a = ap.parse_args()
    mha = MultiHeadAttention(a.d_model, a.heads).eval()
    x = torch.randn(2, a.L, a.d_model)
    with torch.no_grad():
        t0 = time.perf_counter()
        y = mha(x)
        dt = time.perf_counter() - t0
    print(f"{tuple(y.shape)} in {dt * 1e3:.1f} ms")
