import functools

import torch

_LETTERS = "abcdefghijklmnop"


@functools.lru_cache(maxsize=None)
def _equation(ndim):
    """The einsum equation for ndim-dimensional q and k: '...qd,...kd->...qk' spelled out."""
    batch = _LETTERS[:ndim - 2]
    return f"{batch}xz,{batch}yz->{batch}xy"


def attention_scores(q, k):
    if q.dim() != k.dim():
        k = k.expand(*q.shape[:-2], *k.shape[-2:])
    return torch.einsum(_equation(q.dim()), q, k)
