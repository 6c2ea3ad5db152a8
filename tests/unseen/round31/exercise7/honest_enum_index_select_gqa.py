"""Exercise 7 — Grouped-query attention.

repeat_kv with index_select: output head j reads input head j // n_rep. An Enum names the three
regimes (MHA, GQA, MQA) and a property tells which one a module is; the classmethods build MHA
and MQA directly.
"""

import enum
import itertools
import math

import torch
import torch.nn as nn

# Given: exercises 4 and 5 (torch.softmax is allowed from here on).


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


# My part.


def repeat_kv(x, n_rep):
    """(B, H_kv, L, d) -> (B, H_kv*n_rep, L, d), heads in the order 0,..,0, 1,..,1, ..."""
    assert n_rep >= 1, f"n_rep must be >= 1, got {n_rep}"
    idx = torch.arange(x.size(1) * n_rep, device=x.device) // n_rep
    return x.index_select(1, idx)


class AttentionKind(enum.Enum):
    MHA = "multi-head"
    GQA = "grouped-query"
    MQA = "multi-query"


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.d_head = d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * d_head, d_model, bias=False)

    @classmethod
    def multi_head(cls, d_model, n_heads):
        return cls(d_model, n_heads, n_heads)

    @classmethod
    def multi_query(cls, d_model, n_heads):
        return cls(d_model, n_heads, 1)

    @property
    def kind(self) -> AttentionKind:
        if self.n_kv_heads == self.n_heads:
            return AttentionKind.MHA
        return AttentionKind.MQA if self.n_kv_heads == 1 else AttentionKind.GQA

    def extra_repr(self):
        return f"{self.kind.value}: {self.n_heads} query heads, {self.n_kv_heads} KV heads"

    def forward(self, x, mask=None):
        B, L, D = x.shape
        heads = [
            proj(x).view(B, L, n, self.d_head).transpose(1, 2)
            for proj, n in zip(
                (self.q_proj, self.k_proj, self.v_proj),
                itertools.chain([self.n_heads], itertools.repeat(self.n_kv_heads, 2)),
            )
        ]
        q, k, v = heads
        n_rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        if mask is None:
            mask = causal_mask(L, device=x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_head))


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--kv-heads", type=int, nargs="*", default=[8, 2, 1])
    args = ap.parse_args()
    x = torch.randn(2, 128, 256)
    for h_kv in args.kv_heads:
        m = GroupedQueryAttention(256, 8, h_kv)
        t = time.perf_counter()
        m(x)
        print(m.kind.name, f"{(time.perf_counter() - t) * 1e3:.1f} ms", sum(p.numel() for p in m.parameters()))
