"""Exercise 10 — Attention without the L x L matrix.

The running statistics are a NamedTuple (m, l, o) that each block replaces; blocks come from a
small generator built on itertools. Queries are pre-multiplied by 1/sqrt(d_k) once, as
FlashAttention does, instead of dividing every block of scores.
"""

import itertools
import logging
import math
from functools import partial
from typing import Iterator, NamedTuple, Optional

import torch

logger = logging.getLogger(__name__)

NEG_INF = -math.inf
row_max = partial(torch.amax, dim=-1, keepdim=True)
row_sum = partial(torch.sum, dim=-1, keepdim=True)


class Running(NamedTuple):
    m: torch.Tensor  # (..., R, 1) largest score so far
    l: torch.Tensor  # (..., R, 1) sum of e^(s - m)
    o: Optional[torch.Tensor] = None  # (..., R, d_v) sum of e^(s - m) v


def _blocks(n: int, size: int) -> Iterator[slice]:
    """slice(0, size), slice(size, 2 size), ... covering range(n); the last may be shorter."""
    if size < 1:
        raise ValueError(f"block_size must be >= 1, got {size}")
    starts = itertools.takewhile(lambda s: s < n, itertools.count(0, size))
    return (slice(s, min(s + size, n)) for s in starts)


def _finite_or_zero(m):
    return m.masked_fill(torch.isneginf(m), 0.0)


def attention_cost(L, d_model):
    """FLOPs (2 per multiply-add) of one layer's core attention, projections and feed-forward."""
    mul_adds = {
        "core_attention": 2 * L * L * d_model,
        "projections": 4 * L * d_model * d_model,
        "feed_forward": 2 * L * d_model * 4 * d_model,
    }
    return {name: 2 * n for name, n in mul_adds.items()}


def crossover_length(d_model):
    """Solve 4 L^2 d = 24 L d^2 for L."""
    return (24 * d_model * d_model) // (4 * d_model)


def online_softmax(x, block_size):
    """Two passes: running max and sum block by block, then e^(x - m) / l."""
    state = Running(m=x.new_full(x.shape[:-1] + (1,), NEG_INF), l=x.new_zeros(x.shape[:-1] + (1,)))
    for sl in _blocks(x.shape[-1], block_size):
        blk = x[..., sl]
        m_new = torch.maximum(state.m, row_max(blk))
        shift = _finite_or_zero(m_new)
        state = Running(m_new, state.l * torch.exp(state.m - shift) + row_sum(torch.exp(blk - shift)))
    return torch.exp(x - _finite_or_zero(state.m)) / state.l.masked_fill(state.l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    """Exact softmax(Q K^T / sqrt(d_k)) V from blocks of block_size keys."""
    L_q, L_k = q.shape[-2], k.shape[-2]
    q = q * (1.0 / math.sqrt(q.shape[-1]))
    lead = q.shape[:-1]
    state = Running(q.new_full(lead + (1,), NEG_INF), q.new_zeros(lead + (1,)), q.new_zeros(lead + (v.shape[-1],)))
    query_pos = torch.arange(L_k - L_q, L_k, device=q.device).unsqueeze(-1)
    for n_blocks, sl in enumerate(_blocks(L_k, block_size), start=1):
        s = q @ k[..., sl, :].transpose(-2, -1)
        if causal:
            key_pos = torch.arange(sl.start, sl.stop, device=q.device)
            s = s.masked_fill(key_pos > query_pos, NEG_INF)
        m_new = torch.maximum(state.m, row_max(s))
        shift = _finite_or_zero(m_new)
        rescale = torch.exp(state.m - shift)
        p = torch.exp(s - shift)
        state = Running(m_new, state.l * rescale + row_sum(p), state.o * rescale + p @ v[..., sl, :])
    logger.debug("tiled_attention: %d queries, %d keys in %d blocks", L_q, L_k, n_blocks if L_k else 0)
    return state.o / state.l.masked_fill(state.l == 0, 1.0)


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG)
    print(list(_blocks(10, 4)))
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 9, 8, generator=g) for _ in range(3))
    full = torch.softmax((q @ k.mT / math.sqrt(8)).masked_fill(~torch.ones(9, 9, dtype=torch.bool).tril(), NEG_INF), -1) @ v
    print((tiled_attention(q, k, v, 4, causal=True) - full).abs().max())
