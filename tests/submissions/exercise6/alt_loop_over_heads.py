"""Exercise 6 with einsum for the reshapes and a loop over the heads in forward.

Diagnosis: none.
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
    heads = [x[:, :, h * (D // n_heads):(h + 1) * (D // n_heads)] for h in range(n_heads)]
    return torch.stack(heads, dim=1)  # (B, H, L, d_head)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)  # head 0's columns, then head 1's, ...


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        qkv = self.qkv(x)
        q, k, v = qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]
        if mask is None:
            mask = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        mask = mask.expand(B, self.n_heads, L, L)
        outputs = []
        for h in range(self.n_heads):
            cols = slice(h * self.d_head, (h + 1) * self.d_head)
            scores = torch.einsum("bqd,bkd->bqk", q[..., cols], k[..., cols]) / math.sqrt(self.d_head)
            scores = torch.where(mask[:, h], scores, torch.tensor(float("-inf"), dtype=x.dtype, device=x.device))
            weights = torch.softmax(scores, dim=-1).masked_fill(~mask[:, h], 0.0)  # a query that sees no key: 0
            outputs.append(torch.einsum("bqk,bkd->bqd", weights, v[..., cols]))
        return self.out(torch.cat(outputs, dim=-1))
