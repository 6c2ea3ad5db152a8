"""Exercise 7 — Grouped-query attention.

repeat_kv the way Llama's reference code does it: insert a new axis, expand it (no copy), then
reshape, which puts the n_rep copies of each KV head next to each other. Hyper-parameters live
in a dataclass like Llama's ModelArgs.
"""

import math
from dataclasses import dataclass, field
from typing import Optional

import torch
import torch.nn as nn

__all__ = ["repeat_kv", "GroupedQueryAttention", "GQAArgs"]

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


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """(B, H_kv, L, d) -> (B, H_kv * n_rep, L, d); output head j is input head j // n_rep."""
    if n_rep == 1:
        return x
    B, H_kv, L, d = x.shape
    return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)


@dataclass
class GQAArgs:
    d_model: int = 512
    n_heads: int = 8
    n_kv_heads: Optional[int] = None  # None: as many as n_heads (plain MHA)
    notes: list = field(default_factory=list)

    @property
    def kv_heads(self) -> int:
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.n_rep = n_heads // n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    @classmethod
    def from_args(cls, args: GQAArgs) -> "GroupedQueryAttention":
        return cls(args.d_model, args.n_heads, args.kv_heads)

    def _heads(self, t: torch.Tensor, n: int) -> torch.Tensor:
        B, L, _ = t.shape
        return t.view(B, L, n, self.d_head).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        B, L, _ = x.shape
        q = self._heads(self.q_proj(x), self.n_heads)
        k = repeat_kv(self._heads(self.k_proj(x), self.n_kv_heads), self.n_rep)
        v = repeat_kv(self._heads(self.v_proj(x), self.n_kv_heads), self.n_rep)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, L, self.n_heads * self.d_head))


if __name__ == "__main__":
    x = torch.arange(2.0).view(1, 2, 1, 1)
    print(repeat_kv(x, 3).flatten().tolist())  # [0, 0, 0, 1, 1, 1]
    m = GroupedQueryAttention.from_args(GQAArgs(d_model=64, n_heads=8, n_kv_heads=2))
    print(m(torch.randn(2, 5, 64)).shape)
