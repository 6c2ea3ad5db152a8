"""Exercise 7 — Grouped-query attention.

repeat_kv with repeat_interleave; forward is wrapped by a decorator that checks the input's
shape, and a typing.Protocol documents what an attention function looks like.
"""

from __future__ import annotations

import functools
import logging
import math
from typing import Callable, Optional, Protocol, Tuple

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)

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


class AttentionFn(Protocol):
    def __call__(
        self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: Optional[torch.Tensor] = ...
    ) -> Tuple[torch.Tensor, torch.Tensor]: ...


def expects_bld(method: Callable) -> Callable:
    """Check that forward gets a (B, L, d_model) tensor."""

    @functools.wraps(method)
    def wrapper(self, x, *args, **kwargs):
        if x.dim() != 3 or x.size(-1) != self.d_model:
            raise ValueError(f"expected (B, L, {self.d_model}), got {tuple(x.shape)}")
        return method(self, x, *args, **kwargs)

    return wrapper


def repeat_kv(x, n_rep):
    """Repeat each KV head n_rep times next to itself: heads [0, 0, 0, 1, 1, 1] for n_rep = 3."""
    return x.repeat_interleave(n_rep, dim=1)


class GroupedQueryAttention(nn.Module):
    attention: AttentionFn = staticmethod(scaled_dot_product_attention)

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.d_model = d_model
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)
        logger.debug("GQA: %d query heads share %d KV heads", n_heads, n_kv_heads)

    @expects_bld
    def forward(self, x, mask=None):
        B, L, _ = x.shape
        split = lambda t, h: t.view(B, L, h, self.d_head).transpose(1, 2)  # noqa: E731
        q = split(self.q_proj(x), self.n_heads)
        k = split(self.k_proj(x), self.n_kv_heads)
        v = split(self.v_proj(x), self.n_kv_heads)
        rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, rep), repeat_kv(v, rep)
        y, _ = self.attention(q, k, v, causal_mask(L, x.device) if mask is None else mask)
        y = y.transpose(1, 2).contiguous().view(B, L, -1)
        return self.o_proj(y)


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG)
    gqa = GroupedQueryAttention(32, 4, 2)
    print(gqa(torch.randn(3, 6, 32)).shape, gqa.forward.__name__)
