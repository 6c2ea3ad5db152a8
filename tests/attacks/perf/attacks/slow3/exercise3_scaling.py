"""Exercise 3 — honest but slow: a Python loop over rows (queries), for the scores and the scaling."""

import math

import torch


def scale_scores(scores, d_k):
    """scores / √d_k, one row of scores at a time."""
    scale = math.sqrt(d_k)
    return torch.stack([scores[..., i, :] / scale for i in range(scores.size(-2))], dim=-2)


def scaled_scores(q, k):
    """Q K^T / √d_k: the dot products of one query with every key at a time, then scaled."""
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]  # each (..., L_k)
    return scale_scores(torch.stack(rows, dim=-2), q.size(-1))
