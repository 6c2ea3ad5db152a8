import math

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights


def split_heads(x, n_heads):
    d_head = x.shape[-1] // n_heads
    return torch.stack([x[..., h * d_head:(h + 1) * d_head] for h in range(n_heads)], dim=1)


def merge_heads(x):
    return torch.cat(x.unbind(dim=1), dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        D = x.shape[-1]
        q, k, v = self.qkv(x).split(D, dim=-1)
        if mask is None:
            mask = causal_mask(x.shape[1], x.device)
        mask = mask if mask.dim() == 4 else mask.expand(x.shape[0], 1, *mask.shape[-2:])  # (B or 1, 1 or H, L, L)
        heads = []
        for h in range(self.n_heads):  # one head at a time, with its own mask where each head has one
            cut = slice(h * self.d_head, (h + 1) * self.d_head)
            y, _ = scaled_dot_product_attention(q[..., cut], k[..., cut], v[..., cut], mask[:, h % mask.size(1)])
            heads.append(y)
        return self.out(torch.cat(heads, dim=-1))
