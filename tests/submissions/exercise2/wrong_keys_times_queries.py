"""Exercise 2 with the product the wrong way round: one row per key instead of one per query.

Diagnosis: scores-transposed.
"""

import torch


def attention_scores(q, k):
    return k @ q.transpose(-2, -1)
