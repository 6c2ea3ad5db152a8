"""Exercise 4 — Causal and padding masks.

The causal pattern only depends on L, so I build it once per L on the CPU (lru_cache) and hand
out a fresh copy on the requested device each time, so nobody can modify the cached one.
"""

from __future__ import annotations

import functools
from typing import Optional, Union

import torch

__all__ = ["causal_mask", "apply_mask", "padding_mask"]

Device = Union[torch.device, str, int, None]

NEG_INF = float("-inf")


@functools.lru_cache(maxsize=64)
def _tril_cpu(L: int) -> torch.Tensor:
    return torch.tril(torch.ones(L, L, dtype=torch.bool))


def causal_mask(L: int, device: Optional[Device] = None) -> torch.Tensor:
    """(L, L) bool, True on and below the diagonal; on `device` (None: the CPU)."""
    assert L >= 1, f"L must be >= 1, got {L}"
    return _tril_cpu(L).to(device=device if device is not None else "cpu", copy=True)


def apply_mask(scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """New tensor: scores where mask is True, -inf where it is False (scores untouched)."""
    return scores.masked_fill(~mask, NEG_INF)


def padding_mask(lengths: torch.Tensor, L: int) -> torch.Tensor:
    """(B, 1, L) bool on lengths' device; [b, 0, j] is True where j < lengths[b]."""
    positions = torch.arange(L, device=lengths.device)  # (L,)
    return (positions < lengths[:, None])[:, None, :]  # (B, L) -> (B, 1, L)


if __name__ == "__main__":
    print(causal_mask(3).int())
    print(padding_mask(torch.tensor([3, 1, 0]), 4).int())
    s = torch.zeros(3, 3)
    print(apply_mask(s, causal_mask(3)))
    print(_tril_cpu.cache_info())
