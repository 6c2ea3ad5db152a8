"""Exercise 7 — Grouped-query attention.

Chapter section: "Grouped-query and multi-query attention".

At generation time every layer caches the keys and values of every token, and that cache, not the
weights, is what fills GPU memory. Queries are what make heads different; keys and values are just
the context's labels and content. So grouped-query attention (GQA) keeps H query heads but only
H_kv key/value heads, each shared by a group of H / H_kv query heads:

- H_kv == H: ordinary multi-head attention.
- H_kv == 1: multi-query attention (one key head and one value head for everyone).
- in between: the KV cache is H / H_kv times smaller (Llama-2 70B and Llama-3 70B: H = 64 query
  heads, H_kv = 8, so each KV head serves 8 query heads).

The maths is ordinary per-head attention after one extra step: repeat each KV head H / H_kv times
so that it lines up with its group of query heads.

Every function and module here leaves its inputs unchanged and returns tensors in the inputs'
dtype (float32 or float64; float16 and bfloat16 too) and on their device. A float64 input is
computed in float64 all the way: no .float() and no float32 softmax on the way, as some
libraries do for speed.
It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import functools
import math
from dataclasses import dataclass
from typing import Optional

import torch
import torch.nn as nn


# Given: exercises 4 and 5, as the chapter writes them but for one difference: the chapter's attention
# returns NaN for a query whose mask row is all False (torch.softmax of a row of -inf is 0/0), and
# this one gives that query zero weights and a zero output, as your exercise 5 does. Padding can leave
# such rows, and a NaN there would spread to every later layer and every gradient. From here on you
# may use torch.softmax (writing it was exercise 5); torch's fused attention and nn.MultiheadAttention
# stay off limits.


def causal_mask(L, device=None):
    """Given: (L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))  # (L, L)


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: bool broadcastable to (..., L_q, L_k); True = may attend.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)); a fully masked query gets zeros.
    """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed
    weights = torch.softmax(scores, dim=-1)  # (..., L_q, L_k) rows sum to 1
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)  # (..., L_q, L_k) a fully masked row: NaN -> 0
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


# Your part.


def repeat_kv(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """(B, H_kv, L, d) -> (B, H_kv*n_rep, L, d): head j is head j // n_rep."""
    if n_rep == 1:
        return x
    b, h, length, d = x.shape
    return x[:, :, None].expand(b, h, n_rep, length, d).reshape(b, h * n_rep, length, d)


@dataclass(frozen=True)
class _Shape:
    n_heads: int
    n_kv_heads: int
    d_head: int

    @property
    def group(self) -> int:
        return self.n_heads // self.n_kv_heads


@functools.lru_cache(maxsize=8)
def _cached_causal(length: int, device: str) -> torch.Tensor:
    return causal_mask(length, device=torch.device(device))


class GroupedQueryAttention(nn.Module):
    """The chapter's grouped-query self-attention."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.shape = _Shape(n_heads, n_kv_heads, self.d_head)
        widths = {"q": n_heads, "k": n_kv_heads, "v": n_kv_heads}
        for name, heads in widths.items():
            setattr(self, f"{name}_proj", nn.Linear(d_model, heads * self.d_head, bias=False))
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def _split(self, name: str, x: torch.Tensor, heads: int) -> torch.Tensor:
        projected = getattr(self, f"{name}_proj")(x)
        return projected.unflatten(-1, (heads, self.d_head)).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        q = self._split("q", x, self.n_heads)
        k = repeat_kv(self._split("k", x, self.n_kv_heads), self.shape.group)
        v = repeat_kv(self._split("v", x, self.n_kv_heads), self.shape.group)
        if mask is None:
            mask = _cached_causal(x.size(1), str(x.device))
        out, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(out.transpose(1, 2).flatten(2))
