"""Exercise 1 — Project: queries, keys and values.

My solution: plain `@` products, with type hints and a small NamedTuple so the result can be
read as `res.q` / `res.k` / `res.v` as well as unpacked like the tuple the stub asks for.
"""

from __future__ import annotations

from typing import NamedTuple, TypeVar

import torch

__all__ = ["QKV", "project", "fused_project"]
__version__ = "1.0.0"

TensorT = TypeVar("TensorT", bound=torch.Tensor)


class QKV(NamedTuple):
    """Queries, keys and values; a tuple, so `q, k, v = project(...)` works."""

    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor


def _linear(x: TensorT, w: torch.Tensor) -> TensorT:
    """x (..., L, d_in) @ w (d_in, d_out) -> (..., L, d_out); batch dims broadcast."""
    return x @ w


def project(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor) -> QKV:
    """Q = X W_Q, K = X W_K, V = X W_V."""
    assert w_q.shape == w_k.shape, (
        f"W_Q {tuple(w_q.shape)} and W_K {tuple(w_k.shape)} must have the same shape"
    )
    assert x.size(-1) == w_q.size(0), f"x has width {x.size(-1)}, W_Q expects {w_q.size(0)}"
    return QKV(_linear(x, w_q), _linear(x, w_k), _linear(x, w_v))


def fused_project(x: torch.Tensor, w_qkv: torch.Tensor) -> QKV:
    """One product with [W_Q | W_K | W_V], then cut the last dim into three equal parts."""
    width = w_qkv.size(-1)
    assert width % 3 == 0, f"w_qkv has {width} columns, not a multiple of 3"
    q, k, v = (x @ w_qkv).split(width // 3, dim=-1)
    return QKV(q, k, v)


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(2, 5, 8)
    wq, wk, wv = (torch.randn(8, 4) for _ in range(3))
    res = project(x, wq, wk, wv)
    fused = fused_project(x, torch.cat([wq, wk, wv], dim=1))
    print(res.q.shape, res.v.shape)
    print("fused == separate:", all(torch.allclose(a, b, atol=1e-6) for a, b in zip(res, fused)))
