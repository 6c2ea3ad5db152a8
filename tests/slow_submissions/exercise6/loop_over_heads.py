"""Exercise 6, correct but slow: one head at a time, in a Python loop over the heads."""

import math

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = (q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))).masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)  # a fully masked row: 0, not NaN
    return weights @ v, weights


def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)


def merge_heads(x):
    B, H, L, d_head = x.shape
    return x.transpose(1, 2).reshape(B, L, H * d_head)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        mask = causal_mask(L, x.device) if mask is None else mask
        q, k, v = (split_heads(t, self.n_heads) for t in self.qkv(x).split(D, dim=-1))
        mask = mask.expand(B, self.n_heads, L, L)
        heads = [scaled_dot_product_attention(q[:, h], k[:, h], v[:, h], mask[:, h])[0] for h in range(self.n_heads)]
        return self.out(torch.cat(heads, dim=-1))
