import torch


class _MaskMaker:
    """Tiny helper object so I don't repeat the dtype/device plumbing."""

    __slots__ = ("device",)

    def __init__(self, device=None):
        self.device = device

    def ones(self, *shape):
        return torch.ones(*shape, dtype=torch.bool, device=self.device)


def causal_mask(L, device=None):
    return _MaskMaker(device).ones(L, L).tril()


def apply_mask(scores, mask):
    return scores.masked_fill(mask.logical_not(), float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions[None, :] < lengths[:, None])[:, None, :]
