"""Exercise 7 — Grouped-query attention, one query head at a time.

Diagnosis: none.
"""

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


def repeat_kv(x, n_rep):
    # query head j reads KV head j // n_rep
    heads = [x[:, j // n_rep] for j in range(x.shape[1] * n_rep)]
    return torch.stack(heads, dim=1)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        L = x.shape[1]
        dh = self.d_head
        group = self.n_heads // self.n_kv_heads
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        if mask is None:
            mask = causal_mask(L, x.device)
        if mask.dim() == 4:  # (B, 1 or H, L, L): pick each head's slice below
            per_head = lambda h: mask[:, h if mask.shape[1] > 1 else 0]
        else:
            per_head = lambda h: mask
        outputs = []
        for h in range(self.n_heads):
            g = h // group  # the KV head this query head reads
            y, _ = scaled_dot_product_attention(
                q[..., h * dh:(h + 1) * dh], k[..., g * dh:(g + 1) * dh], v[..., g * dh:(g + 1) * dh],
                per_head(h),
            )
            outputs.append(y)  # (B, L, dh)
        return self.o_proj(torch.cat(outputs, dim=-1))
