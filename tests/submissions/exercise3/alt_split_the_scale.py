"""Exercise 3, correct: d_k ** -0.5 as a power, and the scale split between q and k (each takes
d_k ** -0.25), so the product carries exactly 1/√d_k (a correct alternative).

Diagnosis: none.
"""

import torch


def scale_scores(scores, d_k):
    return scores * d_k ** -0.5


def scaled_scores(q, k):
    quarter = q.size(-1) ** -0.25
    return torch.matmul(q * quarter, (k * quarter).transpose(-1, -2))
