"""Exercise 2 that already divides by √d_k (that is exercise 3's job).

Diagnosis: scores-prescaled.
"""

import math

import torch


def attention_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
