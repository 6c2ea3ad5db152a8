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

import functools
import operator


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """functools.reduce over the factors; 2 = keys and values."""
    factors = [2, n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value]
    return int(functools.reduce(operator.mul, factors, 1))


class KVCache:
    """ONE allocation holding both: storage (2, B, H_kv, max_len, d_head), keys at [0], values at
    [1]. That is the same memory as two (B, H_kv, max_len, d_head) buffers, allocated once; keys
    and values are views of it. New tokens are written with index_copy_ along the token axis.

    index_copy_ needs an index tensor; to keep `update` allocation-free ("nothing is allocated
    afterwards"), the positions 0 .. max_len-1 are made ONCE in __init__ (max_len int64s, tiny
    next to the cache) and update only narrows that tensor (a view)."""

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self.max_len = max_len
        self.storage = torch.zeros(2, batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self.positions = torch.arange(max_len, device=self.storage.device)
        self.pos = 0

    @property
    def keys(self):
        return self.storage[0]  # (B, H_kv, max_len, d_head), a view

    @property
    def values(self):
        return self.storage[1]

    def __len__(self):
        return self.pos

    def reset(self):
        self.pos = 0

    def update(self, k, v):
        n = k.size(-2)
        end = self.pos + n
        if end > self.max_len:
            raise ValueError(f"cache holds at most {self.max_len} tokens; {self.pos} + {n} do not fit")
        idx = self.positions.narrow(0, self.pos, n)  # a view: no allocation
        self.storage[0].index_copy_(2, idx, k)
        self.storage[1].index_copy_(2, idx, v)
        self.pos = end
        return self.storage[0, :, :, :end], self.storage[1, :, :, :end]


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation: each call takes the NEXT tokens of the sequence.

    When exactly one new token comes in (the usual decoding step) it may see every key, so no mask
    is built at all (mask=None means "attend to everything" in the given attention).
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

    def forward(self, x, cache=None):
        B, T, _ = x.shape
        H, G, dh = self.n_heads, self.n_kv_heads, self.d_head
        q = self.q_proj(x).view(B, T, H, dh).transpose(1, 2)
        k = self.k_proj(x).view(B, T, G, dh).transpose(1, 2)
        v = self.v_proj(x).view(B, T, G, dh).transpose(1, 2)
        past = 0 if cache is None else len(cache)
        if cache is not None:
            k, v = cache.update(k, v)
        k, v = repeat_kv(k, H // G), repeat_kv(v, H // G)
        if T == 1:
            mask = None  # the single new token (position past) sees keys 0 .. past: all of them
        else:
            mask = torch.tril(torch.ones(T, past + T, dtype=torch.bool, device=x.device), diagonal=past)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, H * dh))
