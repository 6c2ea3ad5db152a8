"""Exercise 3 — Scale by sqrt(d_k).

A small Scaler object (with __slots__, a property and a classmethod) holds the width; the two
graded functions are thin wrappers around it.
"""

import enum
import math

import torch


class ScaleMode(enum.Enum):
    SQRT = "sqrt"  # the transformer's choice: 1/sqrt(d_k)
    NONE = "none"  # unscaled, for comparison in the notebook


class Scaler:
    __slots__ = ("d_k", "mode")

    def __init__(self, d_k: int, mode: ScaleMode = ScaleMode.SQRT):
        if d_k <= 0:
            raise ValueError(f"d_k must be positive, got {d_k}")
        self.d_k = d_k
        self.mode = mode

    @classmethod
    def for_queries(cls, q: torch.Tensor) -> "Scaler":
        return cls(q.size(-1))

    @property
    def divisor(self) -> float:
        return math.sqrt(self.d_k) if self.mode is ScaleMode.SQRT else 1.0

    def __call__(self, scores: torch.Tensor) -> torch.Tensor:
        return scores / self.divisor

    def __repr__(self) -> str:
        return f"Scaler(d_k={self.d_k}, mode={self.mode.value}, divisor={self.divisor:.4g})"


def scale_scores(scores, d_k):
    """Divide raw scores (..., L_q, L_k) by sqrt(d_k); returns a new tensor."""
    return Scaler(d_k)(scores)


def scaled_scores(q, k):
    """Q K^T / sqrt(d_k), d_k = q.size(-1)."""
    return Scaler.for_queries(q)(q @ k.transpose(-2, -1))


if __name__ == "__main__":
    import argparse
    import time

    p = argparse.ArgumentParser()
    p.add_argument("--d-k", type=int, default=64)
    p.add_argument("--L", type=int, default=512)
    a = p.parse_args()
    q, k = torch.randn(a.L, a.d_k), torch.randn(a.L, a.d_k)
    t = time.perf_counter()
    s = scaled_scores(q, k)
    print(Scaler(a.d_k), f"std={s.std():.3f}", f"{(time.perf_counter() - t) * 1e3:.2f} ms")
