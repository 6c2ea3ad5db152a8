"""Exercise 1 — Project: queries, keys and values.

Besides the two functions the exercise asks for, I keep the weights in a frozen dataclass
(handy in the notebook) and name the three parts of the fused matrix with an Enum.
"""

import enum
import warnings
from dataclasses import dataclass

import torch

__all__ = ["project", "fused_project", "Part", "QKVWeights"]


class Part(enum.Enum):
    """Which third of the fused [W_Q | W_K | W_V] matrix."""

    Q = 0
    K = 1
    V = 2


@dataclass(frozen=True)
class QKVWeights:
    """W_Q, W_K, W_V kept together (frozen: the tensors cannot be swapped by accident)."""

    w_q: torch.Tensor
    w_k: torch.Tensor
    w_v: torch.Tensor

    @property
    def d_model(self) -> int:
        return self.w_q.shape[0]

    @classmethod
    def from_fused(cls, w_qkv: torch.Tensor) -> "QKVWeights":
        d = w_qkv.shape[-1] // 3
        return cls(*(w_qkv[:, p.value * d:(p.value + 1) * d] for p in Part))

    def fused(self) -> torch.Tensor:
        return torch.cat([self.w_q, self.w_k, self.w_v], dim=-1)

    def __repr__(self) -> str:
        return (
            f"QKVWeights(d_model={self.d_model}, d_k={self.w_q.shape[1]}, "
            f"d_v={self.w_v.shape[1]}, dtype={self.w_q.dtype})"
        )


def project(x, w_q, w_k, w_v):
    """Q = X W_Q, K = X W_K, V = X W_V: one `@` each.

    x: (..., L, d_model); w_q, w_k: (d_model, d_k); w_v: (d_model, d_v).
    """
    match x.dim():
        case 0 | 1:
            raise ValueError(f"x must be (..., L, d_model), got shape {tuple(x.shape)}")
        case _:
            pass
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    """One `x @ w_qkv` (..., L, 3d), then three (..., L, d) pieces."""
    if w_qkv.shape[-1] % 3:
        raise ValueError(f"w_qkv must have 3*d columns, got {w_qkv.shape[-1]}")
    q, k, v = (x @ w_qkv).chunk(3, dim=-1)
    return q, k, v


def qkv_projection(x, w_qkv):
    """Old name from my first draft; kept so my notebook still runs."""
    warnings.warn("qkv_projection is deprecated, use fused_project", DeprecationWarning, stacklevel=2)
    return fused_project(x, w_qkv)


if __name__ == "__main__":
    torch.manual_seed(1)
    w = QKVWeights(torch.randn(6, 3), torch.randn(6, 3), torch.randn(6, 3))
    print(w)
    x = torch.randn(3, 4, 6)
    a = project(x, w.w_q, w.w_k, w.w_v)
    b = fused_project(x, w.fused())
    for part in Part:
        print(part.name, torch.allclose(a[part.value], b[part.value], atol=1e-6))
