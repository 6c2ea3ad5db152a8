"""The chapter's five steps, and the multi-head reshapes, one small function each.

Each function is one step of "Anatomy of attention" written for whole matrices, so a student's
exercise can be checked against exactly the step it asks for. Leading batch dims are allowed
everywhere unless a docstring says otherwise.
"""

import math

import torch


# Step 1 -- Project: make a query, keys and values


def project(x, w_q, w_k, w_v):
    """x (..., L, d_model), w_q/w_k (d_model, d_k), w_v (d_model, d_v) -> Q, K, V = X W each."""
    return x @ w_q, x @ w_k, x @ w_v  # (..., L, d_k), (..., L, d_k), (..., L, d_v)


def fused_project(x, w_qkv):
    """x (..., L, d_model), w_qkv (d_model, 3d) = [W_Q | W_K | W_V] -> Q, K, V from one matmul."""
    qkv = x @ w_qkv  # (..., L, 3d)
    d = w_qkv.size(-1) // 3
    return qkv.split(d, dim=-1)  # three (..., L, d)


# Step 2 -- Score every key


def attention_scores(q, k):
    """q (..., L_q, d_k), k (..., L_k, d_k) -> S = Q K^T (..., L_q, L_k), not yet scaled."""
    return q @ k.transpose(-2, -1)  # (..., L_q, L_k)


# Step 3 -- Scale


def scale_scores(scores, d_k):
    """Divide scores by sqrt(d_k), so their spread stays near 1 whatever the width."""
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    """q (..., L_q, d_k), k (..., L_k, d_k) -> Q K^T / sqrt(d_k) (..., L_q, L_k)."""
    return scale_scores(attention_scores(q, k), q.size(-1))


# Causal masking: no peeking at the future


def apply_mask(scores, mask):
    """A new tensor: scores where mask is True, -inf where it is False (mask broadcastable)."""
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    """lengths (B,) int -> bool (B, 1, L): key j is real (True) where j < lengths[b]."""
    positions = torch.arange(L, device=lengths.device)  # (L,)
    return (positions < lengths[:, None])[:, None, :]  # (B, 1, L)


# Step 4 -- Softmax: turn scores into weights


def softmax(x, dim=-1):
    """Stable softmax: subtract the max before exp; a slice that is all -inf gives zeros, not NaN."""
    x_max = x.amax(dim=dim, keepdim=True)  # (..., 1, ...) largest score per slice
    x_max = torch.where(torch.isfinite(x_max), x_max, torch.zeros_like(x_max))  # all -inf: shift 0
    e = torch.exp(x - x_max)  # every entry <= 1: no overflow
    total = e.sum(dim=dim, keepdim=True)  # (..., 1, ...)
    return e / torch.where(total > 0, total, torch.ones_like(total))  # 0 / 1 for an empty slice


# Multi-head attention: heads become a batch dim


def split_heads(x, n_heads):
    """(B, L, D) -> (B, H, L, D/H); head h holds columns h*d_head .. (h+1)*d_head - 1."""
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)  # (B, H, L, d_head)


def merge_heads(x):
    """(B, H, L, d_head) -> (B, L, H*d_head): the heads' outputs side by side."""
    B, H, L, d_head = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)  # (B, L, D)


# Grouped-query attention


def repeat_kv(x, n_rep):
    """(B, H_kv, L, d) -> (B, H_kv*n_rep, L, d); output head j is input head j // n_rep."""
    return x.repeat_interleave(n_rep, dim=1)  # (B, H, L, d)
