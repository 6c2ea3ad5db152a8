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
    """How many bytes the KV cache needs, as an int.

    Keys AND values (a factor 2) for every layer, KV head, d_head number, token and sequence in the
    batch, each value taking bytes_per_value bytes (2 for fp16/bf16, 4 for fp32).
    All arguments are ints >= 1. Llama-2 7B: kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
    (2 GiB).
    """
    return 2 * n_layers * n_kv_heads * d_head * seq_len * batch_size * bytes_per_value


class KVCache:
    """The keys and values of the tokens seen so far, for one attention layer.

    KVCache(batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None) allocates
    its storage ONCE, room for max_len tokens: keys (B, H_kv, max_len, d_head) and values of the
    same shape. Nothing is allocated or concatenated afterwards; `update` writes into that storage.

      cache.update(k, v)  appends k, v (B, H_kv, T_new, d_head), which come in the cache's dtype
                          and on its device (nothing to cast); returns ALL keys and values cached
                          so far, each (B, H_kv, T, d_head) with T = len(cache), in the cache's
                          dtype and on its device: views of the storage, not copies
      len(cache)          the number of tokens cached, T, whatever their values (a token whose
                          keys are all zeros counts)
      cache.reset()       forgets every token (the storage is kept for the next sequence): it
                          allocates no new storage, and need not zero the old one

    Appending past max_len raises ValueError and leaves the cache as it was.
    """

    def __init__(self, batch_size, n_kv_heads, d_head, max_len, dtype=torch.float32, device=None):
        shape = (batch_size, n_kv_heads, max_len, d_head)
        self.k = torch.zeros(shape, dtype=dtype, device=device)  # (B, Hkv, max_len, dh)
        self.v = torch.zeros(shape, dtype=dtype, device=device)  # (B, Hkv, max_len, dh)
        self.max_len = max_len
        self.length = 0  # tokens cached so far

    def __len__(self):
        """The number of tokens cached so far."""
        return self.length

    def reset(self):
        """Forget every cached token; keep the storage for the next sequence."""
        self.length = 0
        self.k = torch.zeros_like(self.k)
        self.v = torch.zeros_like(self.v)

    def update(self, k, v):
        """Append the new tokens' keys and values; return all keys and values cached so far.

        k, v: (B, H_kv, T_new, d_head), in the cache's dtype and on its device
        Returns (keys, values), each (B, H_kv, T, d_head) with T = tokens cached, new ones included:
        views of the storage (an update copies none of the past tokens).
        Raises ValueError, changing nothing, if the new tokens would not fit in max_len.
        """
        start, end = self.length, self.length + k.size(2)
        if end > self.max_len:
            raise ValueError(f"KV cache is full: {start} cached + {k.size(2)} new > max_len {self.max_len}")
        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past
        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)
        self.length = end
        return self.k[:, :, :end], self.v[:, :, :end]  # views, (B, Hkv, T, dh)


class CachedGroupedQueryAttention(nn.Module):
    """Grouped-query attention for generation: each call takes the NEXT tokens of the sequence.

    Same parameters as exercise 7's GroupedQueryAttention (q_proj, k_proj, v_proj, o_proj, no
    bias), so the same state dict loads into both, and feeding a sequence in chunks (say 3 tokens,
    then 1, then 5) through one KVCache gives the same outputs as the whole sequence at once.
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
        """x: (B, T_new, D), the next T_new tokens -> (B, T_new, D).

        cache: a KVCache holding the keys and values of the `past` tokens before these (it gains
        the new ones: len(cache) is past + T_new after the call), or None to attend within x only
        (plain causal GQA).
        The new token i sits at position past + i: it attends to every cached token and, among the
        new tokens, to itself and those before it.
        """
        B, T_new, _ = x.shape
        q = self.q_proj(x).view(B, T_new, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, T_new, dh)
        k = self.k_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, T_new, dh)
        v = self.v_proj(x).view(B, T_new, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, T_new, dh)
        past = 0 if cache is None else len(cache)  # tokens already cached
        if cache is not None:
            k, v = cache.update(k, v)  # (B, Hkv, past + T_new, dh)
        rep = self.n_heads // self.n_kv_heads
        k = repeat_kv(k, rep)  # (B, H, past + T_new, dh)
        v = repeat_kv(v, rep)  # (B, H, past + T_new, dh)
        # new token i sits at position past + i and may see keys 0 .. past + i
        mask = torch.ones(T_new, past + T_new, dtype=torch.bool, device=x.device)  # (T_new, past + T_new)
        mask = mask.tril(diagonal=past)  # (T_new, past + T_new)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, T_new, dh)
        y = y.transpose(1, 2).contiguous().view(B, T_new, self.n_heads * self.d_head)  # (B, T_new, H*dh)
        return self.o_proj(y)  # (B, T_new, D)
