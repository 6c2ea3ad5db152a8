"""Exercise 7: grouped-query attention, my way (config dataclass, einsum over groups)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    if n_rep == 1:
        return x
    B, H_kv, L, d = x.shape
    return x[:, :, None, :, :].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)


@dataclass(frozen=True)
class Shape:
    d_model: int
    n_heads: int
    n_kv_heads: int

    @property
    def d_head(self) -> int:
        return self.d_model // self.n_heads

    @property
    def group(self) -> int:
        return self.n_heads // self.n_kv_heads


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.shape = Shape(d_model, n_heads, n_kv_heads)
        widths = {"q": n_heads, "k": n_kv_heads, "v": n_kv_heads}
        for name, heads in widths.items():
            setattr(self, f"{name}_proj", nn.Linear(d_model, heads * self.shape.d_head, bias=False))
        self.o_proj = nn.Linear(n_heads * self.shape.d_head, d_model, bias=False)

    def extra_repr(self) -> str:
        return f"{self.shape}"

    def _split(self, t: torch.Tensor, heads: int) -> torch.Tensor:
        B, L, _ = t.shape
        return t.view(B, L, heads, self.shape.d_head).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        s = self.shape
        B, L, _ = x.shape
        q = self._split(self.q_proj(x), s.n_heads)           # (B, H, L, dh)
        k = self._split(self.k_proj(x), s.n_kv_heads)        # (B, Hkv, L, dh)
        v = self._split(self.v_proj(x), s.n_kv_heads)
        q = q.reshape(B, s.n_kv_heads, s.group, L, s.d_head)  # heads grouped by their KV head
        scores = torch.einsum("bgrqd,bgkd->bgrqk", q, k) / math.sqrt(s.d_head)
        if mask is None:
            mask = causal_mask(L, x.device)
        else:
            mask = mask.expand(B, s.n_heads, L, L).reshape(B, s.n_kv_heads, s.group, L, L)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        y = torch.einsum("bgrqk,bgkd->bgrqd", weights, v)    # (B, Hkv, group, L, dh)
        y = y.reshape(B, s.n_heads, L, s.d_head).transpose(1, 2).reshape(B, L, -1)
        return self.o_proj(y)
