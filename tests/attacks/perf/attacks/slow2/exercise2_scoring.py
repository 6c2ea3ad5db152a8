"""Exercise 2 — honest but slow: score one query row at a time (a Python loop over queries)."""

import torch


def attention_scores(q, k):
    """S = Q K^T, one query row at a time: each row is the dot products of query i with every key."""
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]  # each (..., L_k)
    return torch.stack(rows, dim=-2)  # (..., L_q, L_k)
