"""Port of meta-llama/llama (llama/model.py, Attention): cache_k/cache_v = torch.zeros((max_batch_size, max_seq_len, n_kv_heads, head_dim))
allocated once; `self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk`, keys = cache_k[:bsz, : start_pos + seqlen]; repeat_kv; scores /
math.sqrt(head_dim) + mask, F.softmax(scores.float()).type_as(xq); the mask of Transformer.forward (full -inf, triu(diagonal=1), hstack
zeros for the cached part). Adapted to the stub: the cache object tracks start_pos (Meta's caller passes it), update takes/returns the kit's
(B, H_kv, T, d) by transposing views of Meta's (B, max_len, H_kv, d) storage; names wq.. -> q_proj..; no RoPE. Contract variant: the one
change from port_meta_llama.py is a ValueError raised in update, before writing, when start_pos + seqlen > max_len.
"""

# --- the stub's own module docstring, kept as written ---
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
tensors come back in the inputs' dtype and on their device. Torch's fused attention and
nn.MultiheadAttention are off limits; torch.softmax is fine.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs). The grader checks the gradients of one forward
with cache=None and of one forward(x, cache) on an empty cache, so the keys and values `update`
hands back must keep autograd's record (writing k, v into the storage in place does); backward
through several calls that share one cache is not graded.
"""

import math

import torch
import torch.nn as nn

import torch.nn.functional as F


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


def _repeat_kv_meta(x: torch.Tensor, n_rep: int) -> torch.Tensor:
    """torch.repeat_interleave(x, dim=2, repeats=n_rep)"""
    bs, slen, n_kv_heads, head_dim = x.shape
    if n_rep == 1:
        return x
    return (
        x[:, :, :, None, :]
        .expand(bs, slen, n_kv_heads, n_rep, head_dim)
        .reshape(bs, slen, n_kv_heads * n_rep, head_dim)
    )


# Your part.


def kv_cache_bytes(n_layers, n_kv_heads, d_head, seq_len, batch_size=1, bytes_per_value=2):
    """How many bytes the KV cache needs, as an int.

    Keys AND values (a factor 2) for every layer, KV head, d_head number, token and sequence in the
    batch, each value taking bytes_per_value bytes (2 for fp16/bf16, 4 for fp32).
    All arguments are ints >= 1. Llama-2 7B: kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
    (2 GiB).
    """
    # 2 (keys and values) x layers x KV heads x head dim x tokens x batch x bytes per value
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
        self.cache_k = torch.zeros((batch_size, max_len, n_kv_heads, d_head), dtype=dtype, device=device)
        self.cache_v = torch.zeros((batch_size, max_len, n_kv_heads, d_head), dtype=dtype, device=device)
        self.start_pos = 0

    def __len__(self):
        """The number of tokens cached so far."""
        return self.start_pos

    def reset(self):
        """Forget every cached token; keep the storage for the next sequence."""
        self.start_pos = 0

    def update(self, k, v):
        """Append the new tokens' keys and values; return all keys and values cached so far.

        k, v: (B, H_kv, T_new, d_head), in the cache's dtype and on its device
        Returns (keys, values), each (B, H_kv, T, d_head) with T = tokens cached, new ones included:
        views of the storage (an update copies none of the past tokens).
        Raises ValueError, changing nothing, if the new tokens would not fit in max_len.
        """
        xk, xv = k.transpose(1, 2), v.transpose(1, 2)  # kit (B, H_kv, T, d) -> Meta (bsz, seqlen, n_kv_heads, head_dim)
        bsz, seqlen = xk.shape[0], xk.shape[1]
        start_pos = self.start_pos
        if start_pos + seqlen > self.cache_k.shape[1]:  # added
            raise ValueError(f"{start_pos + seqlen} tokens do not fit in max_len {self.cache_k.shape[1]}")

        self.cache_k = self.cache_k.to(xk)
        self.cache_v = self.cache_v.to(xk)

        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv

        keys = self.cache_k[:bsz, : start_pos + seqlen]
        values = self.cache_v[:bsz, : start_pos + seqlen]
        self.start_pos = start_pos + seqlen
        return keys.transpose(1, 2), values.transpose(1, 2)


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
        bsz, seqlen, _ = x.shape
        start_pos = len(cache) if cache is not None else 0
        n_rep = self.n_heads // self.n_kv_heads

        # Transformer.forward
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=x.device)
            mask = torch.triu(mask, diagonal=1)
            # When performing key-value caching, we compute the attention scores
            # only for the new sequence. Thus, the matrix of scores is of size
            # (seqlen, cache_len + seqlen), and the only masked entries are (i, j) for
            # j > cache_len + i, since row i corresponds to token cache_len + i.
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=x.device), mask]).type_as(x)

        xq, xk, xv = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        xq = xq.view(bsz, seqlen, self.n_heads, self.d_head)
        xk = xk.view(bsz, seqlen, self.n_kv_heads, self.d_head)
        xv = xv.view(bsz, seqlen, self.n_kv_heads, self.d_head)

        if cache is not None:
            keys, values = cache.update(xk.transpose(1, 2), xv.transpose(1, 2))
            keys, values = keys.transpose(1, 2), values.transpose(1, 2)  # back to Meta's (bsz, cache_len + seqlen, ...)
        else:
            keys, values = xk, xv

        # repeat k/v heads if n_kv_heads < n_heads (Meta's repeat_kv on (bs, slen, n_kv_heads, head_dim))
        keys = _repeat_kv_meta(keys, n_rep)
        values = _repeat_kv_meta(values, n_rep)

        xq = xq.transpose(1, 2)  # (bs, n_local_heads, seqlen, head_dim)
        keys = keys.transpose(1, 2)  # (bs, n_local_heads, cache_len + seqlen, head_dim)
        values = values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores + mask  # (bs, n_local_heads, seqlen, cache_len + seqlen)
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)  # (bs, n_local_heads, seqlen, head_dim)
        output = output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        return self.o_proj(output)
