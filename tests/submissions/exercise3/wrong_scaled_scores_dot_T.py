"""Exercise 3, scaled_scores with k.T: for a batched k (B, H, L_k, d_k) it reverses every dim, so the
matrix product's shapes clash and it raises on most batched inputs (a crash, not a wrong number).

Diagnosis: scores-transpose-all-dims.
"""

import math

import torch


def scale_scores(scores, d_k):
    """Divide raw scores by √d_k.

    scores: (..., L_q, L_k)  raw scores Q K^T
    d_k:    int > 0          width of the queries and keys
    Returns a new tensor (..., L_q, L_k): scores / √d_k.
    """
    return scores / math.sqrt(d_k)  # (..., L_q, L_k)


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    d_k = q.size(-1)
    scores = q @ k.T  # (..., L_q, L_k)
    return scale_scores(scores, d_k)  # (..., L_q, L_k)
