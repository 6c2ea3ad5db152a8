"""Exercise 3, scaling the wrong way: multiplying by √d_k instead of dividing.

Diagnosis: scale-multiplied.
"""

import math

import torch


def scale_scores(scores, d_k):
    return scores * math.sqrt(d_k)


def scaled_scores(q, k):
    scores = torch.einsum("...qd,...kd->...qk", q, k)
    return scale_scores(scores, q.size(-1))
