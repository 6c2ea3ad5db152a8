from dataclasses import dataclass
from functools import lru_cache
import math
from typing import Optional, Tuple

import torch


@dataclass(frozen=True)
class _Stats:
    """the pieces of a stable softmax along one dim"""
    shift: torch.Tensor
    total: torch.Tensor


def _stats(e_input: torch.Tensor, dim: int) -> _Stats:
    m = e_input.amax(dim=dim, keepdim=True)
    m = m.masked_fill(m == -math.inf, 0.0)
    return _Stats(shift=m, total=torch.exp(e_input - m).sum(dim=dim, keepdim=True))


@lru_cache(maxsize=None)
def _inv_sqrt(d: int) -> float:
    return 1.0 / math.sqrt(d)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    st = _stats(x, dim)
    safe = st.total.masked_fill(st.total == 0, 1.0)
    return torch.exp(x - st.shift) / safe


def scaled_dot_product_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                                 mask: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, torch.Tensor]:
    scores = (q @ k.transpose(-2, -1)) * _inv_sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = softmax(scores)
    return weights @ v, weights
