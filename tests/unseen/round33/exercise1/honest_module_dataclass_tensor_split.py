"""Exercise 1 — projections, with a tiny dataclass describing the fused weight layout.

A real model keeps its fused QKV weight in an nn.Module; the functions the grader calls are the
module-level ones below, and FusedQKV just shows how they would be used inside a layer.
"""

from dataclasses import dataclass

import torch
import torch.nn as nn


@dataclass(frozen=True)
class QKVLayout:
    d_model: int
    d: int

    @classmethod
    def of(cls, w_qkv):
        d_model, cols = w_qkv.size()
        assert cols % 3 == 0, f"expected 3*d columns, got {cols}"
        return cls(d_model=d_model, d=cols // 3)

    @property
    def sections(self):
        return [self.d, self.d, self.d]


def project(x, w_q, w_k, w_v):
    return x.matmul(w_q), x.matmul(w_k), x.matmul(w_v)


def fused_project(x, w_qkv):
    layout = QKVLayout.of(w_qkv)
    assert x.size(-1) == layout.d_model, "x's last dim must be d_model"
    qkv = x.matmul(w_qkv)
    return tuple(torch.split(qkv, layout.sections, dim=-1))


class FusedQKV(nn.Module):
    """Not graded: a layer that owns a fused (d_model, 3d) weight and calls fused_project."""

    def __init__(self, d_model, d):
        super().__init__()
        self.w_qkv = nn.Parameter(torch.randn(d_model, 3 * d) / d_model ** 0.5)

    def forward(self, x):
        return fused_project(x, self.w_qkv)
