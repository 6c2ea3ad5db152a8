import functools

import torch


class _MaskMaker:
    """Builds masks for one length; keeps the private state in slots."""
    __slots__ = ("_length", "_where", "__dict__")

    def __init__(self, length, where=None):
        self._length = length
        self._where = where

    @functools.cached_property
    def causal(self):
        ones = torch.ones(self._length, self._length, dtype=torch.bool, device=self._where)
        return torch.tril(ones)

    def __repr__(self):
        return f"_MaskMaker(length={self._length}, device={self._where})"


def _length_of(maker):
    return maker._length


def causal_mask(L, device=None):
    maker = _MaskMaker(L, device)
    assert _length_of(maker) == L
    return maker.causal


def apply_mask(scores, mask):
    return torch.where(mask, scores, torch.full_like(scores, float("-inf")))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions[None, :] < lengths[:, None]).unsqueeze(1)
