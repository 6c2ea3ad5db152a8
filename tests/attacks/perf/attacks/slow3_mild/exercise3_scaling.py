"""Exercise 3 — honest, a little slow: two needless extra passes over the scores after the
division (adding 0 and multiplying by 1, "to be safe"), about 2× the reference's time."""

import math

import torch


def scale_scores(scores, d_k):
    """scores / √d_k, then two no-op passes that still cost a full read and write each."""
    return ((scores / math.sqrt(d_k)) + 0.0) * 1.0


def scaled_scores(q, k):
    """Q K^T / √d_k."""
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
