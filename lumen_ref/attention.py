"""The chapter's `code/lumen/attention.py`: one head as a function, then multi-head and GQA.

It follows the chapter line for line, with one deliberate difference: the softmax is the stable one
from `steps`, so a query whose every key is masked gets zero weights instead of NaN (the chapter's
"classic bug" with careless padding masks).
"""

import math

import torch
import torch.nn as nn

from lumen_ref.steps import softmax


def scaled_dot_product_attention(q, k, v, mask=None):
    """q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: bool tensor broadcastable to (..., L_q, L_k); True = may attend.
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k))."""
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # step 2 + 3: (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # step 4: -inf where NOT allowed
    weights = softmax(scores, dim=-1)  # step 5: rows sum to 1 (or 0 if fully masked)
    return weights @ v, weights  # step 6: blend the values (..., L_q, d_v)


def causal_mask(L, device=None):
    """(L, L) lower-triangular bool matrix: row i may see columns 0..i."""
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


class MultiHeadAttention(nn.Module):
    """The chapter's multi-head attention: fused W_Q|W_K|W_V in `qkv`, W_O in `out`."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        assert d_model % n_heads == 0, "d_model must divide evenly into heads"
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)  # W_Q, W_K, W_V fused side by side
        self.out = nn.Linear(d_model, d_model, bias=bias)  # W_O

    def forward(self, x, mask=None):
        B, L, D = x.shape  # batch, seq len, d_model
        q, k, v = self.qkv(x).split(D, dim=-1)  # three (B, L, D) tensors
        # (B, L, D) -> (B, L, H, d_head) -> (B, H, L, d_head): heads become a batch dim
        q = q.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        k = k.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        v = v.view(B, L, self.n_heads, self.d_head).transpose(1, 2)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L) broadcasts over (B, H)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, d_head)
        y = y.transpose(1, 2).contiguous().view(B, L, D)  # concat heads: (B, L, H*d_head)
        return self.out(y)  # mix heads with W_O: (B, L, D)


class GroupedQueryAttention(nn.Module):
    """The chapter's GQA: n_kv_heads key/value heads, each serving n_heads // n_kv_heads queries."""

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
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, dh)
        k = self.k_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        v = self.v_proj(x).view(B, L, self.n_kv_heads, self.d_head).transpose(1, 2)  # (B, Hkv, L, dh)
        rep = self.n_heads // self.n_kv_heads
        k = k.repeat_interleave(rep, dim=1)  # (B, H, L, dh): each KV head serves `rep` query heads
        v = v.repeat_interleave(rep, dim=1)  # (B, H, L, dh)
        if mask is None:
            mask = causal_mask(L, x.device)  # (L, L)
        y, _ = scaled_dot_product_attention(q, k, v, mask)  # (B, H, L, dh)
        y = y.transpose(1, 2).contiguous().view(B, L, -1)  # (B, L, H*dh)
        return self.o_proj(y)  # (B, L, D)
