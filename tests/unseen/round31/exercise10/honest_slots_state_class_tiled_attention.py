"""Exercise 10 — Attention without the L x L matrix.

The per-query running state (m, l, o) is a small class with __slots__; each block of keys calls
its `absorb` method. TILED_DEBUG=1 makes every call check its result for NaN. The self-test at
the bottom compares against the whole-matrix formula and times a few block sizes.
"""

import enum
import math
import os

import torch

TILED_DEBUG = os.getenv("TILED_DEBUG", "0") == "1"


class Term(enum.Enum):
    CORE_ATTENTION = "core_attention"
    PROJECTIONS = "projections"
    FEED_FORWARD = "feed_forward"


FLOP_FORMULAS = {
    Term.CORE_ATTENTION: lambda L, d: 4 * L**2 * d,
    Term.PROJECTIONS: lambda L, d: 8 * L * d**2,
    Term.FEED_FORWARD: lambda L, d: 16 * L * d**2,
}


def attention_cost(L, d_model):
    """{"core_attention": 4 L^2 d, "projections": 8 L d^2, "feed_forward": 16 L d^2}."""
    return {term.value: int(f(L, d_model)) for term, f in FLOP_FORMULAS.items()}


def crossover_length(d_model):
    """The L where 4 L^2 d equals 24 L d^2: L = 6 d."""
    return int(6 * d_model)


class OnlineState:
    """Running max m, running sum l and (optionally) running weighted sum o, per row."""

    __slots__ = ("m", "l", "o")

    def __init__(self, m, l, o=None):
        self.m, self.l, self.o = m, l, o

    @classmethod
    def empty(cls, like, rows_shape, d_v=None):
        m = like.new_full((*rows_shape, 1), -math.inf)
        l = like.new_zeros((*rows_shape, 1))
        o = None if d_v is None else like.new_zeros((*rows_shape, d_v))
        return cls(m, l, o)

    @staticmethod
    def safe_shift(m):
        return torch.where(m == -math.inf, torch.zeros_like(m), m)

    @property
    def safe_l(self):
        return torch.where(self.l == 0, torch.ones_like(self.l), self.l)

    def absorb(self, scores, values=None):
        """Fold one block of scores (..., R, nb) (and its values (..., nb, d_v)) into the state."""
        m_new = torch.maximum(self.m, scores.amax(dim=-1, keepdim=True))
        shift = self.safe_shift(m_new)
        alpha = torch.exp(self.m - shift)
        p = torch.exp(scores - shift)
        self.l = self.l * alpha + p.sum(dim=-1, keepdim=True)
        if values is not None:
            self.o = self.o * alpha + p @ values
        self.m = m_new

    def __repr__(self):
        return f"OnlineState(rows={tuple(self.m.shape[:-1])}, has_o={self.o is not None})"


def online_softmax(x, block_size):
    """Softmax over the last axis of x, read block_size entries at a time."""
    state = OnlineState.empty(x, x.shape[:-1])
    for start in range(0, x.shape[-1], block_size):
        state.absorb(x[..., start:start + block_size])
    return torch.exp(x - OnlineState.safe_shift(state.m)) / state.safe_l


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q K^T / sqrt(d_k)) V exactly, block_size keys at a time."""
    L_q, d_k = q.shape[-2:]
    L_k = k.shape[-2]
    state = OnlineState.empty(q, q.shape[:-1], v.shape[-1])
    offset = L_k - L_q  # query i sits at position offset + i
    rows = torch.arange(L_q, device=q.device).view(L_q, 1) + offset
    for start in range(0, L_k, block_size):
        kb, vb = k[..., start:start + block_size, :], v[..., start:start + block_size, :]
        scores = torch.matmul(q, kb.transpose(-1, -2)) / math.sqrt(d_k)
        if causal:
            cols = torch.arange(start, start + kb.shape[-2], device=q.device).view(1, -1)
            scores = scores.masked_fill(cols > rows, -math.inf)
        state.absorb(scores, vb)
    out = state.o / state.safe_l
    if TILED_DEBUG:
        assert not torch.isnan(out).any(), f"NaN in tiled_attention output, state {state!r}"
    return out


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser(description="check tiled_attention against the full formula")
    ap.add_argument("--L", type=int, default=512)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--blocks", type=int, nargs="+", default=[16, 64, 256, 1024])
    a = ap.parse_args()
    torch.manual_seed(0)
    q, k, v = (torch.randn(4, a.L, a.d, dtype=torch.float64) for _ in range(3))
    causal = torch.ones(a.L, a.L, dtype=torch.bool).tril()
    ref = torch.softmax((q @ k.mT / math.sqrt(a.d)).masked_fill(~causal, -math.inf), -1) @ v
    for bs in a.blocks:
        t0 = time.perf_counter()
        out = tiled_attention(q, k, v, bs, causal=True)
        print(f"block {bs:5d}: {(time.perf_counter() - t0) * 1e3:7.1f} ms, max err {(out - ref).abs().max():.2e}")
    print(attention_cost(a.L, a.d), crossover_length(768))
