"""Exercise 1 — Project: queries, keys and values.

Chapter section: "Step 1 — Project: make a query, keys and values".

Every token asks a question (its query), wears a label (its key) and carries content (its value).
All three are learned linear projections of the token's embedding. Stack the L embeddings as the
rows of X (L, d_model) and each projection is a single matrix product:

    Q = X W_Q    K = X W_K    V = X W_V

Any number of leading batch dims may sit in front of (L, d_model); `@` handles them for you. x
may also be laid out in memory in any order (a batch its caller transposed): `@` takes it as it is.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import torch
import torch.nn.functional as F

__all__ = ["project", "fused_project"]


class QKV(NamedTuple):
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor


@dataclasses.dataclass
class _Stats:
    calls: int = 0


_stats = _Stats()


def project(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, w_v: torch.Tensor) -> QKV:
    """Three products: nn.functional.linear takes (out, in) weights, so transpose ours."""
    _stats.calls += 1
    return QKV(*(F.linear(x, w.transpose(0, 1)) for w in (w_q, w_k, w_v)))


def fused_project(x: torch.Tensor, w_qkv: torch.Tensor) -> QKV:
    """One product, then three views of it."""
    _stats.calls += 1
    qkv = torch.matmul(x, w_qkv)
    return QKV(*qkv.unflatten(-1, (3, w_qkv.size(-1) // 3)).unbind(-2))
