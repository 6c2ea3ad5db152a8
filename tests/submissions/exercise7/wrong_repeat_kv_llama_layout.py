"""Exercise 7 — Grouped-query attention.

Chapter section: "Grouped-query and multi-query attention".

At generation time every layer caches the keys and values of every token, and that cache, not the
weights, is what fills GPU memory. Queries are what make heads different; keys and values are just
the context's labels and content. So grouped-query attention (GQA) keeps H query heads but only
H_kv key/value heads, each shared by a group of H / H_kv query heads:

- H_kv == H: ordinary multi-head attention.
- H_kv == 1: multi-query attention (one key head and one value head for everyone).
- in between (Llama-2 70B, Llama-3: H_kv = 8): the KV cache is H / H_kv times smaller.

The maths is ordinary per-head attention after one extra step: repeat each KV head H / H_kv times
so that it lines up with its group of query heads.

Meta's Llama repeat_kv kept as it is written for (B, L, H_kv, d) tensors, then viewed to the right shape.

Diagnosis: repeat-kv-wrong-dim.
"""

import math

import torch
import torch.nn as nn


# Given: exercises 4 and 5, written as in the chapter (you may use torch.softmax from now on).


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


def repeat_kv(x, n_rep):
    """Line the KV heads up with the query heads: repeat each KV head n_rep times, in place.

    x: (B, H_kv, L, d)
    Returns (B, H_kv*n_rep, L, d) where output head j is input head j // n_rep:
    with H_kv = 2 and n_rep = 3 the heads are [0, 0, 0, 1, 1, 1] (not [0, 1, 0, 1, 0, 1]).
    """
    B, H_kv, L, d = x.shape
    # Meta's Llama repeat_kv, whose tensors are (B, L, H_kv, d): here it repeats the positions instead
    return x[:, :, :, None, :].expand(B, H_kv, L, n_rep, d).reshape(B, H_kv, L * n_rep, d).view(B, H_kv * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    """The chapter's grouped-query self-attention.

    GroupedQueryAttention(d_model, n_heads, n_kv_heads), with d_head = d_model // n_heads, must have
    exactly four bias-free linear layers:
      q_proj: nn.Linear(d_model, n_heads * d_head, bias=False)     W_Q, H query heads
      k_proj: nn.Linear(d_model, n_kv_heads * d_head, bias=False)  W_K, only H_kv heads: smaller!
      v_proj: nn.Linear(d_model, n_kv_heads * d_head, bias=False)  W_V, only H_kv heads: smaller!
      o_proj: nn.Linear(n_heads * d_head, d_model, bias=False)     W_O
    (the grader loads a state dict with the keys q_proj.weight, k_proj.weight, v_proj.weight,
    o_proj.weight). n_heads must be a multiple of n_kv_heads.
    """

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        assert n_heads % n_kv_heads == 0, "n_heads must be a multiple of n_kv_heads"
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)  # smaller!
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)  # smaller!
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        """x: (B, L, D) -> (B, L, D).

        mask: None for causal attention (token i sees tokens 0..i), or a bool tensor broadcastable
        to the scores (B, H, L, L); True = may attend.
        Steps: project q (H heads) and k, v (H_kv heads), split into heads, repeat_kv on k and v,
        attention, concatenate the heads, o_proj.
        """
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, dh)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        rep = self.n_heads // self.n_kv_heads
        k = repeat_kv(k, rep)  # (B, H, L, dh): each KV head serves `rep` query heads
        v = repeat_kv(v, rep)  # (B, H, L, dh)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)
        y = y.transpose(1, 2).contiguous().view(B, L, -1)  # concat heads: (B, L, H*dh)
        return self.o_proj(y)  # (B, L, D)
