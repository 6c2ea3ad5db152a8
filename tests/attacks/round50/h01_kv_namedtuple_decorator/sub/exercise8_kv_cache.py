"""Exercise 8 — The KV cache.

Chapter section: "The KV cache: a preview".

A language model generates one token at a time, and each new token must attend to every earlier
one. The earlier tokens' keys and values never change (each depends only on its own token, and the
causal mask means earlier tokens never see later ones), so instead of recomputing them at every
step we keep them: the KV cache. Each step then only projects the new token(s), appends their keys
and values to the cache, and attends to everything cached.

The price is memory: 2 (keys AND values) numbers per layer, per KV head, per d_head, per token,
per sequence in the batch. It is the KV heads that count (H_kv, not the H query heads): for Llama-2
7B (32 layers, 32 KV heads, d_head 128) in fp16, 512 KiB per token, and a 4,096-token sequence
needs 2 GiB of cache.

Positions count from 0. Inputs are left unchanged (except the cache, which `update` fills), and
tensors come back in the inputs' dtype and on their device. A float64 input is computed in
float64 all the way: no .float() and no float32 softmax on the way, as some libraries do for
speed. Torch's fused attention and nn.MultiheadAttention are off limits; torch.softmax is fine.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs). The grader checks the gradients of one forward
with cache=None and of one forward(x, cache) on an empty cache, so the keys and values `update`
hands back must keep autograd's record (writing k, v into the storage in place does); backward
through several calls that share one cache is not graded.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple, Optional

import torch
import torch.nn as nn


# Given: exercises 5 and 7. The attention is the chapter's but for one difference: the chapter's
# returns NaN for a query whose mask row is all False (torch.softmax of a row of -inf is 0/0), and
# this one gives that query zero weights and a zero output, as your exercise 5 does.


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


def repeat_kv(x, n_rep):
    """Given: (B, H_kv, L, d) -> a new (B, H_kv*n_rep, L, d); output head j is input head j // n_rep."""
    return x.repeat_interleave(n_rep, dim=1)  # (B, H_kv*n_rep, L, d)


# Your part.



def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """How many bytes the KV cache needs, as an int."""
    return math.prod((2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))


def _checked_shapes(method):
    """A student's debugging decorator: k and v must have the same shape."""
    @functools.wraps(method)
    def wrapper(self, k, v):
        if k.shape != v.shape:
            raise ValueError(f"k {tuple(k.shape)} and v {tuple(v.shape)} differ")
        return method(self, k, v)
    return wrapper


class Cached(NamedTuple):
    keys: torch.Tensor
    values: torch.Tensor


class KVCache:
    """The keys and values of the tokens seen so far, for one attention layer."""

    __slots__ = ("keys", "values", "max_len", "length")

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.keys = torch.zeros(shape, dtype=dtype, device=device)
        self.values = torch.zeros(shape, dtype=dtype, device=device)
        self.max_len = max_len
        self.length = 0

    def __len__(self) -> int:
        return self.length

    def __repr__(self):
        return f"KVCache({self.length}/{self.max_len} tokens)"

    def reset(self) -> None:
        self.length = 0

    @_checked_shapes
    def update(self, k: torch.Tensor, v: torch.Tensor) -> Cached:
        start = self.length
        end = start + k.size(2)
        if end > self.max_len:
            raise ValueError(f"cache full: {start} + {k.size(2)} > {self.max_len}")
        self.keys.narrow(2, start, k.size(2)).copy_(k)
        self.values.narrow(2, start, v.size(2)).copy_(v)
        self.length = end
        return Cached(self.keys.narrow(2, 0, end), self.values.narrow(2, 0, end))


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def _heads(self, t: torch.Tensor, n: int) -> torch.Tensor:
        b, length, _ = t.shape
        return t.unflatten(-1, (n, self.d_head)).transpose(1, 2)

    def forward(self, x: torch.Tensor, cache: Optional[KVCache] = None) -> torch.Tensor:
        q = self._heads(self.q_proj(x), self.n_heads)
        k = self._heads(self.k_proj(x), self.n_kv_heads)
        v = self._heads(self.v_proj(x), self.n_kv_heads)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        rep = self.n_heads // self.n_kv_heads
        new = x.size(1)
        mask = torch.ones(new, past + new, dtype=torch.bool, device=x.device).tril(diagonal=past)
        out, _ = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask)
        return self.o_proj(out.transpose(1, 2).flatten(-2))
