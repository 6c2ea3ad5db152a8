"""Exercise 2 as (K Qᵀ)ᵀ = Q Kᵀ, with mT (a correct alternative).

Diagnosis: none.
"""

import torch


def attention_scores(q, k):
    return torch.matmul(k, q.mT).mT
