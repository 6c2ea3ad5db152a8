"""Exercise 10 — tiled attention, organised around a small running-state dataclass.

_key_blocks() is a generator that yields (first key position, keys, values) one block at a time,
and RunningSoftmax holds m, l and o for every query and knows how to absorb one block.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

import torch
from torch import Tensor


def attention_cost(L: int, d_model: int) -> dict:
    multiply_adds = {
        "core_attention": 2 * L * L * d_model,
        "projections": 4 * L * d_model * d_model,
        "feed_forward": 2 * L * d_model * 4 * d_model,
    }
    return {name: 2 * n for name, n in multiply_adds.items()}  # 2 FLOPs per multiply-add


def crossover_length(d_model: int) -> int:
    linear_per_token = 24 * d_model * d_model  # projections + feed-forward, per unit of L
    return linear_per_token // (4 * d_model)


def _blocks(n: int, size: int) -> Iterator[Tuple[int, int]]:
    for lo in range(0, n, size):
        yield lo, min(lo + size, n)


def _finite_or_zero(m: Tensor) -> Tensor:
    return torch.where(torch.isfinite(m), m, torch.zeros_like(m))


@dataclass
class RunningSoftmax:
    m: Tensor                 # (..., L_q, 1) the largest score so far
    l: Tensor                 # (..., L_q, 1) sum of e^(s - m)
    o: Optional[Tensor] = None  # (..., L_q, d_v) sum of e^(s - m) v (None for online_softmax)

    def absorb(self, s: Tensor, vb: Optional[Tensor] = None) -> None:
        m_new = torch.maximum(self.m, s.amax(dim=-1, keepdim=True))
        shift = _finite_or_zero(m_new)
        rescale = torch.exp(self.m - shift)
        p = torch.exp(s - shift)
        self.l = self.l * rescale + p.sum(dim=-1, keepdim=True)
        if vb is not None:
            self.o = self.o * rescale + p @ vb
        self.m = m_new

    @property
    def safe_l(self) -> Tensor:
        return torch.where(self.l == 0, torch.ones_like(self.l), self.l)


def online_softmax(x: Tensor, block_size: int) -> Tensor:
    st = RunningSoftmax(
        m=torch.full((*x.shape[:-1], 1), -math.inf, dtype=x.dtype, device=x.device),
        l=torch.zeros((*x.shape[:-1], 1), dtype=x.dtype, device=x.device),
    )
    for lo, hi in _blocks(x.shape[-1], block_size):
        st.absorb(x[..., lo:hi])
    return torch.exp(x - _finite_or_zero(st.m)) / st.safe_l


def _key_blocks(k: Tensor, v: Tensor, size: int) -> Iterator[Tuple[int, Tensor, Tensor]]:
    for lo, hi in _blocks(k.shape[-2], size):
        yield lo, k[..., lo:hi, :], v[..., lo:hi, :]


def tiled_attention(q: Tensor, k: Tensor, v: Tensor, block_size: int, causal: bool = False) -> Tensor:
    L_q, L_k = q.shape[-2], k.shape[-2]
    scale = 1.0 / math.sqrt(q.shape[-1])
    st = RunningSoftmax(
        m=torch.full((*q.shape[:-1], 1), -math.inf, dtype=q.dtype, device=q.device),
        l=torch.zeros((*q.shape[:-1], 1), dtype=q.dtype, device=q.device),
        o=torch.zeros((*q.shape[:-1], v.shape[-1]), dtype=q.dtype, device=q.device),
    )
    query_pos = torch.arange(L_q, device=q.device).unsqueeze(-1) + (L_k - L_q)  # (L_q, 1)
    for lo, kb, vb in _key_blocks(k, v, block_size):
        s = torch.einsum("...qd,...kd->...qk", q, kb) * scale
        if causal:
            key_pos = torch.arange(lo, lo + kb.shape[-2], device=q.device)
            s = s.masked_fill(key_pos > query_pos, -math.inf)
        st.absorb(s, vb)
    return st.o / st.safe_l
