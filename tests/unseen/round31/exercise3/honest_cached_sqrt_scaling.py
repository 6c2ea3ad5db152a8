"""Exercise 3 — Scale by sqrt(d_k).

The square root of d_k is the same number every call for a given width, so I memoise it with
functools.cache (d_k is an int, hashable).
"""

from __future__ import annotations

import math
from functools import cache

import torch

__all__ = ["scale_scores", "scaled_scores"]


@cache
def _sqrt_dk(d_k: int) -> float:
    return math.sqrt(d_k)


def scale_scores(scores: torch.Tensor, d_k: int) -> torch.Tensor:
    """Divide raw scores (..., L_q, L_k) by sqrt(d_k); returns a new tensor."""
    assert d_k > 0, f"d_k must be a positive int, got {d_k!r}"
    return scores / _sqrt_dk(int(d_k))


def scaled_scores(q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Q K^T / sqrt(d_k) with d_k = q.size(-1); q (..., L_q, d_k), k (..., L_k, d_k)."""
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))


if __name__ == "__main__":
    torch.manual_seed(0)
    for d in (4, 64, 512):
        q, k = torch.randn(256, d), torch.randn(256, d)
        raw = q @ k.T
        print(f"d_k={d:4d}  raw std {raw.std():6.2f}   scaled std {scaled_scores(q, k).std():.2f}")
    print(_sqrt_dk.cache_info())
