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

import math

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

from dataclasses import dataclass, field
from typing import Optional, Tuple


def kv_cache_bytes(n_layers: int, n_kv_heads: int, d_head: int, seq_len: int,
                   batch_size: int = 1, bytes_per_value: int = 2) -> int:
    per_token = 2 * n_layers * n_kv_heads * d_head * bytes_per_value  # K and V, every layer
    return per_token * seq_len * batch_size


@dataclass(eq=False)  # eq=False: comparing caches field by field would compare tensors
class KVCache:
    """A dataclass whose __post_init__ allocates the two buffers once."""

    batch_size: int
    n_kv_heads: int
    d_head: int
    max_len: int
    dtype: torch.dtype = torch.float32
    device: Optional[torch.device] = None
    k_buf: torch.Tensor = field(init=False, repr=False)
    v_buf: torch.Tensor = field(init=False, repr=False)
    filled: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        shape = (self.batch_size, self.n_kv_heads, self.max_len, self.d_head)
        self.k_buf = torch.zeros(shape, dtype=self.dtype, device=self.device)
        self.v_buf = torch.zeros(shape, dtype=self.dtype, device=self.device)

    def __len__(self) -> int:
        return self.filled

    def reset(self) -> None:
        self.filled = 0

    def update(self, k: torch.Tensor, v: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        new_len = self.filled + k.shape[2]
        if new_len > self.max_len:
            raise ValueError(f"KVCache overflow: {new_len} > {self.max_len}")
        self.k_buf[:, :, self.filled:new_len].copy_(k)
        self.v_buf[:, :, self.filled:new_len].copy_(v)
        self.filled = new_len
        return self.k_buf[:, :, :new_len], self.v_buf[:, :, :new_len]


class CachedGroupedQueryAttention(nn.Module):
    """Cached GQA that never repeats the KV heads: the query heads are grouped instead.

    q is viewed as (B, H_kv, n_rep, T, d) (query head j = g*n_rep + r belongs to KV head g, the
    head repeat_kv would give it) and the cached k, v get a size-1 axis that broadcasts inside the
    given attention's matmuls. Everything stays in x's dtype.
    """

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

    def forward(self, x: torch.Tensor, cache: Optional[KVCache] = None) -> torch.Tensor:
        B, T, D = x.shape
        G, dh = self.n_kv_heads, self.d_head
        R = self.n_heads // G
        q = self.q_proj(x).view(B, T, G, R, dh).permute(0, 2, 3, 1, 4)  # (B, G, R, T, dh)
        k = self.k_proj(x).view(B, T, G, dh).transpose(1, 2)  # (B, G, T, dh)
        v = self.v_proj(x).view(B, T, G, dh).transpose(1, 2)
        past = 0
        if cache is not None:
            past = len(cache)
            k, v = cache.update(k, v)  # (B, G, past + T, dh)
        mask = torch.ones(T, past + T, dtype=torch.bool, device=x.device).tril(past)
        y, _ = scaled_dot_product_attention(q, k.unsqueeze(2), v.unsqueeze(2), mask)  # (B, G, R, T, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, T, D)
        return self.o_proj(y)
