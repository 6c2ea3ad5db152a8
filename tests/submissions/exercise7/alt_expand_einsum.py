"""Exercise 7 — Grouped-query attention, written with expand + reshape and einsum.

Diagnosis: none.
"""

import math

import torch
import torch.nn as nn


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def repeat_kv(x, n_rep):
    """(B, H_kv, L, d) -> (B, H_kv*n_rep, L, d): a new group axis after the heads, then flatten."""
    B, H_kv, L, d = x.shape
    return x[:, :, None].expand(B, H_kv, n_rep, L, d).reshape(B, H_kv * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        B, L, _ = x.shape
        q = self.q_proj(x).reshape(B, L, self.n_heads, self.d_head)  # (B, L, H, dh)
        k = self.k_proj(x).reshape(B, L, self.n_kv_heads, self.d_head).permute(0, 2, 1, 3)
        v = self.v_proj(x).reshape(B, L, self.n_kv_heads, self.d_head).permute(0, 2, 1, 3)
        k = repeat_kv(k, self.n_heads // self.n_kv_heads)  # (B, H, L, dh)
        v = repeat_kv(v, self.n_heads // self.n_kv_heads)
        scores = torch.einsum("bqhd,bhkd->bhqk", q, k) / math.sqrt(self.d_head)
        if mask is None:
            mask = causal_mask(L, x.device)
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
        weights = torch.softmax(scores, dim=-1)
        weights = torch.where(mask, weights, torch.zeros_like(weights))  # fully masked rows: 0, not NaN
        y = torch.einsum("bhqk,bhkd->bqhd", weights, v)  # (B, L, H, dh): heads already side by side
        return self.o_proj(y.reshape(B, L, self.n_heads * self.d_head))
