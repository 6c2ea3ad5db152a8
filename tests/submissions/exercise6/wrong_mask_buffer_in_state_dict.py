"""Exercise 6, nanoGPT style: a causal-mask buffer registered as persistent, so the state dict saves it.

Diagnosis: state-dict-extra.
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

def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, L, d_head = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)
        self.register_buffer("causal", causal_mask(256))  # saved with the weights

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = split_heads(q, self.n_heads), split_heads(k, self.n_heads), split_heads(v, self.n_heads)
        if mask is None:
            mask = self.causal[:L, :L]
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
