from __future__ import annotations

from typing import Protocol, runtime_checkable

import torch


@runtime_checkable
class HasShape(Protocol):
    @property
    def shape(self) -> torch.Size: ...


def attention_scores(q: "torch.Tensor", k: "torch.Tensor") -> "torch.Tensor":
    """Q Kᵀ: every query against every key."""
    assert isinstance(q, HasShape) and isinstance(k, HasShape), f"expected tensors, got {type(q).__name__}"
    assert q.shape[-1] == k.shape[-1], f"q has d_k={q.shape[-1]} but k has d_k={k.shape[-1]}"
    return q @ k.transpose(-2, -1)
