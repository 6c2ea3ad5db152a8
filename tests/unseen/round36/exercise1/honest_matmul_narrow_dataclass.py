"""Exercise 1 — Project: queries, keys and values.

torch.matmul for the products, Tensor.narrow to take the three column blocks of the fused
product, and a tiny frozen dataclass to name the result (unpacked back into a plain tuple, as the
API asks for (q, k, v)).
"""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class QKV:
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor

    def as_tuple(self):
        # not dataclasses.astuple: that deep-copies its fields (it would copy the tensors
        # and cut autograd's record); build the tuple by hand instead.
        return (self.q, self.k, self.v)


def project(x, w_q, w_k, w_v):
    """Three torch.matmul calls, one per projection."""
    return QKV(torch.matmul(x, w_q), torch.matmul(x, w_k), torch.matmul(x, w_v)).as_tuple()


def fused_project(x, w_qkv):
    """One torch.matmul, then three narrow() views of the last dim (no copies)."""
    qkv = torch.matmul(x, w_qkv)
    d = qkv.shape[-1] // 3
    parts = [qkv.narrow(-1, i * d, d) for i in range(3)]
    return QKV(*parts).as_tuple()
