"""Exercise 2 as the definition, one dot product per (query, key) pair by broadcasting (correct).

Diagnosis: none.
"""

import torch


def attention_scores(q, k):
    pairs = q.unsqueeze(-2) * k.unsqueeze(-3)  # (..., L_q, 1, d) * (..., 1, L_k, d) -> (..., L_q, L_k, d)
    return pairs.sum(dim=-1)  # q_i · k_j
