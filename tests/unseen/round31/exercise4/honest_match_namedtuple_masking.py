"""Exercise 4 — Causal and padding masks.

I describe a batch's masking with a NamedTuple and use a `match` on the mask's number of dims to
give a clear error when a mask cannot line up with the scores.
"""

import itertools
from typing import NamedTuple

import torch


class MaskInfo(NamedTuple):
    L_q: int
    L_k: int
    n_visible: int  # how many (query, key) pairs may attend

    @classmethod
    def of(cls, mask: torch.Tensor) -> "MaskInfo":
        return cls(mask.shape[-2], mask.shape[-1], int(mask.sum()))


def causal_mask(L, device=None):
    """The (L, L) causal mask on `device`: row i may see columns 0..i."""
    ones = torch.ones((L, L), dtype=torch.bool, device=device)
    return ones.tril()


def apply_mask(scores, mask):
    """-inf where mask is False, a new tensor of scores' shape/dtype/device."""
    match mask.dim():
        case 0:
            raise ValueError("mask must have at least the key dimension")
        case n if n > scores.dim() and mask.shape[: n - scores.dim()] != (1,) * (n - scores.dim()):
            raise ValueError(f"mask {tuple(mask.shape)} has more dims than scores {tuple(scores.shape)}")
        case _:
            pass
    if mask.dtype != torch.bool:
        raise TypeError(f"mask must be bool (True = may attend), got {mask.dtype}")
    return scores.masked_fill(mask.logical_not(), float("-inf"))


def padding_mask(lengths, L):
    """(B, 1, L) bool: key j of sequence b is real when j < lengths[b]."""
    key_pos = torch.arange(L, device=lengths.device).unsqueeze(0)  # (1, L)
    real = key_pos < (n := lengths.unsqueeze(1))  # (B, L)
    assert real.shape == (n.shape[0], L), f"unexpected padding mask shape {tuple(real.shape)}"
    return real.unsqueeze(1)


if __name__ == "__main__":
    m = causal_mask(4)
    print(MaskInfo.of(m))  # 10 visible pairs: 1 + 2 + 3 + 4
    for i, j in itertools.product(range(4), repeat=2):
        assert bool(m[i, j]) == (j <= i), (i, j)
    pad = padding_mask(torch.tensor([2, 4]), 4)
    print(pad.squeeze(1).int())
    s = torch.randn(2, 4, 4)
    print(apply_mask(s, pad & m))
