"""Exercise 10 — Attention without the L x L matrix.

The FLOP bill is a small dataclass turned into the requested dict with dataclasses.asdict; the
online softmax and the tiled attention are straightforward loops over blocks of keys.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Dict

import torch

__all__ = ["attention_cost", "crossover_length", "online_softmax", "tiled_attention"]


@dataclass(frozen=True)
class LayerCost:
    core_attention: int
    projections: int
    feed_forward: int

    @classmethod
    def of(cls, L: int, d: int) -> "LayerCost":
        return cls(
            core_attention=2 * (L * L * d) * 2,  # Q K^T and A V, 2 FLOPs per multiply-add
            projections=2 * (L * d * d) * 4,  # W_Q, W_K, W_V, W_O
            feed_forward=2 * (L * d * 4 * d) * 2,  # d -> 4d -> d
        )


def attention_cost(L: int, d_model: int) -> Dict[str, int]:
    """FLOPs of one layer: {"core_attention", "projections", "feed_forward"}."""
    return asdict(LayerCost.of(L, d_model))


def crossover_length(d_model: int) -> int:
    """4 L^2 d = 24 L d^2  =>  L = 6 d."""
    return 6 * d_model


def _neg_inf_to_zero(t: torch.Tensor) -> torch.Tensor:
    return torch.where(torch.isneginf(t), torch.zeros_like(t), t)


def online_softmax(x: torch.Tensor, block_size: int) -> torch.Tensor:
    """Softmax over the last axis, reading block_size entries at a time; all -inf rows -> 0."""
    assert block_size >= 1, f"block_size must be >= 1, got {block_size}"
    n = x.size(-1)
    m = x.new_full((*x.shape[:-1], 1), float("-inf"))
    l = x.new_zeros((*x.shape[:-1], 1))
    for start in range(0, n, block_size):
        block = x[..., start:start + block_size]
        m_new = torch.maximum(m, block.amax(dim=-1, keepdim=True))
        shift = _neg_inf_to_zero(m_new)
        l = l * torch.exp(m - shift) + torch.exp(block - shift).sum(dim=-1, keepdim=True)
        m = m_new
    l = torch.where(l == 0, torch.ones_like(l), l)
    return torch.exp(x - _neg_inf_to_zero(m)) / l


def tiled_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, causal: bool = False) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d_k)) V, block_size keys at a time, never forming (L_q, L_k)."""
    L_q, L_k = q.size(-2), k.size(-2)
    scale = math.sqrt(q.size(-1))
    m = q.new_full((*q.shape[:-1], 1), float("-inf"))  # (..., L_q, 1)
    l = q.new_zeros((*q.shape[:-1], 1))  # (..., L_q, 1)
    o = q.new_zeros((*q.shape[:-1], v.size(-1)))  # (..., L_q, d_v)
    q_pos = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]  # (L_q, 1)
    for start in range(0, L_k, block_size):
        end = min(start + block_size, L_k)
        s = q @ k[..., start:end, :].transpose(-2, -1) / scale  # (..., L_q, nb)
        if causal:
            k_pos = torch.arange(start, end, device=q.device)[None, :]  # (1, nb)
            s = s.masked_fill(k_pos > q_pos, float("-inf"))
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
        shift = _neg_inf_to_zero(m_new)
        alpha = torch.exp(m - shift)
        p = torch.exp(s - shift)
        l = l * alpha + p.sum(dim=-1, keepdim=True)
        o = o * alpha + p @ v[..., start:end, :]
        m = m_new
    return o / torch.where(l == 0, torch.ones_like(l), l)


if __name__ == "__main__":
    print(attention_cost(1024, 768), crossover_length(768))
    torch.manual_seed(0)
    q, k, v = torch.randn(2, 7, 16), torch.randn(2, 11, 16), torch.randn(2, 11, 4)
    w = torch.softmax(q @ k.mT / 4.0, -1)
    print(torch.allclose(tiled_attention(q, k, v, 3), w @ v, atol=1e-5))
    print(torch.allclose(online_softmax(q, 5), torch.softmax(q, -1), atol=1e-6))
