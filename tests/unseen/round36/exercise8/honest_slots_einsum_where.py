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
    n_values = n_layers * n_kv_heads * d_head * seq_len * batch_size
    return 2 * n_values * bytes_per_value


class KVCache:
    """__slots__ class; storage allocated once; Ellipsis-slice assignment with copy_."""

    __slots__ = ("_k", "_v", "_len", "_cap")

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        self._cap = int(max_len)
        self._k = torch.zeros((batch_size, n_kv_heads, self._cap, d_head), dtype=dtype, device=device)
        self._v = torch.zeros((batch_size, n_kv_heads, self._cap, d_head), dtype=dtype, device=device)
        self._len = 0

    def __len__(self):
        return self._len

    def reset(self):
        self._len = 0

    def update(self, k, v):
        lo, hi = self._len, self._len + k.shape[-2]
        if hi > self._cap:  # check before touching anything
            raise ValueError(f"cannot cache {hi} tokens, room for {self._cap}")
        self._k[..., lo:hi, :].copy_(k)
        self._v[..., lo:hi, :].copy_(v)
        self._len = hi
        return self._k[..., :hi, :], self._v[..., :hi, :]


class CachedGroupedQueryAttention(nn.Module):
    """Cached GQA with its own attention: einsum scores, torch.where mask, torch.softmax.

    No query can be fully masked here (each sees at least itself), so -inf is safe. Zero new
    tokens (T_new = 0) just gives an empty output.
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
        B, T, D = x.shape
        if T == 0:
            return self.o_proj(x.new_zeros(B, 0, self.n_heads * self.d_head))
        q, k, v = (
            proj(x).unflatten(-1, (n, self.d_head)).transpose(1, 2)
            for proj, n in ((self.q_proj, self.n_heads), (self.k_proj, self.n_kv_heads), (self.v_proj, self.n_kv_heads))
        )
        past = len(cache) if cache is not None else 0
        if cache is not None:
            k, v = cache.update(k, v)
        n_rep = self.n_heads // self.n_kv_heads
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        scores = torch.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(self.d_head)
        t_idx = torch.arange(T, device=x.device).unsqueeze(1) + past
        s_idx = torch.arange(past + T, device=x.device).unsqueeze(0)
        scores = torch.where(s_idx <= t_idx, scores, scores.new_tensor(float("-inf")))
        weights = torch.softmax(scores, dim=-1)
        y = torch.einsum("bhts,bhsd->bthd", weights, v).flatten(2)
        return self.o_proj(y)
