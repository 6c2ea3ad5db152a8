"""Exercise 1 — Project: queries, keys and values.

Typed version with optional debug logging (set LUMEN_DEBUG=1 to see the shapes).
"""

from __future__ import annotations

import logging
import os
from typing import Tuple

import torch
from torch import Tensor

log = logging.getLogger(__name__)
DEBUG = os.environ.get("LUMEN_DEBUG", "0") == "1"
if DEBUG:
    logging.basicConfig(level=logging.DEBUG)


def project(x: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """Q = X W_Q, K = X W_K, V = X W_V."""
    if w_q.shape != w_k.shape:
        raise ValueError(f"W_Q {tuple(w_q.shape)} and W_K {tuple(w_k.shape)} must match")
    q = x @ w_q
    k = x @ w_k
    v = x @ w_v
    if DEBUG:
        log.debug("project: x %s -> q %s k %s v %s", tuple(x.shape), tuple(q.shape), tuple(k.shape), tuple(v.shape))
    return q, k, v


def fused_project(x: Tensor, w_qkv: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    """One product with [W_Q | W_K | W_V], then slice the columns."""
    three_d = int(w_qkv.shape[-1])
    if three_d % 3:
        raise ValueError(f"w_qkv has {three_d} columns, not a multiple of 3")
    d = three_d // 3
    qkv = x @ w_qkv
    q = qkv[..., :d]
    k = qkv[..., d : 2 * d]
    v = qkv[..., 2 * d :]
    if DEBUG:
        log.debug("fused_project: x %s @ w %s -> 3 x %s", tuple(x.shape), tuple(w_qkv.shape), tuple(q.shape))
    return q, k, v
