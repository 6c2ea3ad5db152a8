"""Exercise 8 — The KV cache.

The cache is a dataclass: its constructor arguments are the fields, and the storage is made in
__post_init__ (fields with init=False). Every update is logged at DEBUG level.
"""

import functools
import logging
import math
import operator
from dataclasses import dataclass, field
from typing import Optional, Tuple

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


# Given: exercises 5 and 7.


def scaled_dot_product_attention(q, k, v, mask=None):
    """Given: one head of attention; a fully masked query gets zeros."""
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


# My part.


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """How many bytes the KV cache needs (an int)."""
    factors = [2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value]
    assert all(isinstance(f, int) and f >= 1 for f in factors), f"expected ints >= 1, got {factors}"
    return functools.reduce(operator.mul, factors, 1)


@dataclass
class KVCache:
    batch_size: int
    n_kv_heads: int
    d_head: int
    max_len: int
    dtype: torch.dtype = torch.float32
    device: Optional[torch.device] = None
    keys: torch.Tensor = field(init=False, repr=False)
    values: torch.Tensor = field(init=False, repr=False)
    length: int = field(init=False, default=0)

    def __post_init__(self):
        shape = (self.batch_size, self.n_kv_heads, self.max_len, self.d_head)
        self.keys = torch.zeros(shape, dtype=self.dtype, device=self.device)
        self.values = torch.zeros(shape, dtype=self.dtype, device=self.device)

    def __len__(self) -> int:
        return self.length

    def reset(self) -> None:
        self.length = 0

    def update(self, k: torch.Tensor, v: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        t_new = k.shape[2]
        if (end := self.length + t_new) > self.max_len:
            raise ValueError(f"{t_new} new tokens do not fit: {self.length} of {self.max_len} used")
        self.keys[:, :, self.length:end] = k
        self.values[:, :, self.length:end] = v
        logger.debug("KVCache: %d -> %d tokens", self.length, end)
        self.length = end
        return self.keys[:, :, :end], self.values[:, :, :end]


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation: each call takes the NEXT tokens of the sequence."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        """Given: exactly exercise 7's layers."""
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def _split(self, t, n_heads):
        B, T, _ = t.shape
        return t.view(B, T, n_heads, self.d_head).transpose(1, 2)

    def forward(self, x, cache: Optional[KVCache] = None):
        B, T, D = x.shape
        q = self._split(self.q_proj(x), self.n_heads)
        k = self._split(self.k_proj(x), self.n_kv_heads)
        v = self._split(self.v_proj(x), self.n_kv_heads)
        if cache is None:
            past = 0
        else:
            past = len(cache)
            k, v = cache.update(k, v)
        # query i (position past + i) sees key j when j <= past + i
        q_pos = torch.arange(past, past + T, device=x.device)
        k_pos = torch.arange(past + T, device=x.device)
        mask = k_pos[None, :] <= q_pos[:, None]  # (T, past + T)
        rep = self.n_heads // self.n_kv_heads
        y, _ = scaled_dot_product_attention(q, repeat_kv(k, rep), repeat_kv(v, rep), mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.n_heads * self.d_head))


if __name__ == "__main__":
    logging.basicConfig(level=logging.DEBUG)
    c = KVCache(1, 2, 4, max_len=5)
    print(c)
    c.update(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    try:
        c.update(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    except ValueError as e:
        print("refused:", e, "| still", len(c))
    print(kv_cache_bytes(32, 8, 128, 4096, batch_size=32) / 2**30, "GiB")
