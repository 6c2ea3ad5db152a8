import math

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def repeat_kv(x, n_rep):
    return torch.repeat_interleave(x, repeats=n_rep, dim=1)


class GroupedQueryAttention(nn.Module):
    """Never repeats K and V: the query heads of a group share one KV head by broadcasting."""

    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        B, L, _ = x.shape
        G, R, d = self.n_kv_heads, self.n_heads // self.n_kv_heads, self.d_head
        q = self.q_proj(x).view(B, L, G, R, d).permute(0, 2, 3, 1, 4)  # (B, G, R, L, d)
        k = self.k_proj(x).view(B, L, G, 1, d).permute(0, 2, 3, 1, 4)  # (B, G, 1, L, d)
        v = self.v_proj(x).view(B, L, G, 1, d).permute(0, 2, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d)  # (B, G, R, L, L)
        if mask is None:
            mask = causal_mask(L, x.device)
        elif mask.dim() == 4:  # (B or 1, H or 1, L, L): heads h = g * R + r
            mask = mask.unflatten(1, (G, R)) if mask.shape[1] == self.n_heads else mask.unsqueeze(2)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
        y = weights @ v  # (B, G, R, L, d)
        return self.o_proj(y.permute(0, 3, 1, 2, 4).reshape(B, L, -1))
