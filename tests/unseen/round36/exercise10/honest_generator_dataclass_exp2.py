"""Exercise 10 — Attention without the L×L matrix.

A generator yields (start, key block, value block); a small dataclass carries the running state;
the exponentials are base 2 (exp2), as fused kernels do: e^(a - b) = 2^((a - b)·log2 e). The
running max is kept in natural units and the difference is taken BEFORE multiplying by log2 e
(multiplying first would round scores like 1e4 to a coarser grid). Half-precision inputs are
accumulated in float32 and the result is cast back to the input dtype; float32 and float64 inputs
are computed in their own dtype (float64 all the way).
"""

import math
from dataclasses import dataclass
from typing import Iterator, Optional, Tuple

import torch

LOG2E = math.log2(math.e)


def attention_cost(L: int, d_model: int) -> dict:
    return dict(
        core_attention=4 * L**2 * d_model,
        projections=8 * L * d_model**2,
        feed_forward=16 * L * d_model**2,
    )


def crossover_length(d_model: int) -> int:
    return int(24 * d_model**2 // (4 * d_model))


def _acc_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.promote_types(dtype, torch.float32)  # fp16/bf16 -> fp32; fp32, fp64 unchanged


def _blocks(t: torch.Tensor, size: int, dim: int) -> Iterator[Tuple[int, torch.Tensor]]:
    n = t.shape[dim]
    for start in range(0, n, size):
        yield start, t.narrow(dim, start, min(size, n - start))


def _exp(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """e^(a - b) computed as 2^((a - b)·log2 e)."""
    return torch.exp2((a - b) * LOG2E)


@dataclass
class _Running:
    m: torch.Tensor  # running max
    l: torch.Tensor  # running Σ e^(s - m)
    o: Optional[torch.Tensor] = None  # running Σ e^(s - m) v (attention only)

    @staticmethod
    def shift(m_new: torch.Tensor) -> torch.Tensor:
        """The max to subtract: 0 for rows that have seen only -inf so far."""
        return torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)

    def denominator(self) -> torch.Tensor:
        return torch.where(self.l == 0, torch.ones_like(self.l), self.l)


def online_softmax(x: torch.Tensor, block_size: int) -> torch.Tensor:
    xa = x.to(_acc_dtype(x.dtype))
    stat = (*x.shape[:-1], 1)
    st = _Running(m=xa.new_full(stat, float("-inf")), l=xa.new_zeros(stat))
    for _, blk in _blocks(xa, block_size, -1):
        m_new = torch.maximum(st.m, blk.amax(-1, keepdim=True))
        sh = st.shift(m_new)
        st.l = st.l * _exp(st.m, sh) + _exp(blk, sh).sum(-1, keepdim=True)
        st.m = m_new
    return (_exp(xa, st.shift(st.m)) / st.denominator()).to(x.dtype)


def tiled_attention(q, k, v, block_size, causal=False):
    acc = _acc_dtype(q.dtype)
    qa, ka, va = q.to(acc), k.to(acc), v.to(acc)  # no copy when already acc
    L_q, L_k = q.shape[-2], k.shape[-2]
    qa = qa * (1.0 / math.sqrt(q.shape[-1]))  # scale once
    lead = q.shape[:-2]
    st = _Running(
        m=qa.new_full((*lead, L_q, 1), float("-inf")),
        l=qa.new_zeros((*lead, L_q, 1)),
        o=qa.new_zeros((*lead, L_q, v.shape[-1])),
    )
    q_pos = torch.arange(L_k - L_q, L_k, device=q.device)
    for start, kb in _blocks(ka, block_size, -2):
        vb = va.narrow(-2, start, kb.shape[-2])
        s = qa @ kb.transpose(-2, -1)
        if causal:
            k_pos = torch.arange(start, start + kb.shape[-2], device=q.device)
            s = torch.where(k_pos.unsqueeze(0) <= q_pos.unsqueeze(1), s, torch.full_like(s, float("-inf")))
        m_new = torch.maximum(st.m, s.amax(-1, keepdim=True))
        sh = st.shift(m_new)
        alpha = _exp(st.m, sh)
        p = _exp(s, sh)
        st.l = st.l * alpha + p.sum(-1, keepdim=True)
        st.o = st.o * alpha + p @ vb
        st.m = m_new
    return (st.o / st.denominator()).to(q.dtype)
