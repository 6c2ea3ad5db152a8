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


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """Product of every count, times 2 for keys and values (exact int arithmetic)."""
    return 2 * math.prod((n_layers, n_kv_heads, d_head, seq_len, batch_size, bytes_per_value))


class KVCache:
    """Storage from torch.empty (only the written prefix is ever read, so zeros are not needed);
    writes with narrow(...).copy_() and hands back narrow() views."""

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._keys = torch.empty(batch_size, n_kv_heads, max_len, d_head, dtype=dtype, device=device)
        self._values = torch.empty_like(self._keys)
        self._n = 0

    @property
    def max_len(self):
        return self._keys.size(2)

    def __len__(self):
        return self._n

    def reset(self):
        self._n = 0  # the storage stays; stale entries are never read before being overwritten

    def update(self, k, v):
        t_new = k.shape[-2]
        if self._n + t_new > self.max_len:
            raise ValueError("appending %d tokens to %d would exceed max_len=%d" % (t_new, self._n, self.max_len))
        self._keys.narrow(2, self._n, t_new).copy_(k)
        self._values.narrow(2, self._n, t_new).copy_(v)
        self._n += t_new
        return self._keys.narrow(2, 0, self._n), self._values.narrow(2, 0, self._n)


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
        return t.reshape(B, T, n_heads, self.d_head).permute(0, 2, 1, 3)

    def forward(self, x, cache=None):
        B, T, D = x.shape
        q = self._split(self.q_proj(x), self.n_heads)
        k = self._split(self.k_proj(x), self.n_kv_heads)
        v = self._split(self.v_proj(x), self.n_kv_heads)
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        n_rep = self.n_heads // self.n_kv_heads
        k = repeat_kv(k, n_rep)
        v = repeat_kv(v, n_rep)
        q_pos = torch.arange(past, past + T, device=x.device)  # absolute positions of the queries
        k_pos = torch.arange(past + T, device=x.device)
        mask = k_pos[None, :] <= q_pos[:, None]  # (T, past + T)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.permute(0, 2, 1, 3).reshape(B, T, D))
