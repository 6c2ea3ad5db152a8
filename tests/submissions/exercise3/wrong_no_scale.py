"""Exercise 3, skipping the scale: "the softmax will normalise it anyway".

Diagnosis: missing-scale.
"""

import torch


def scale_scores(scores, d_k):
    return scores.clone()  # softmax normalises the rows, so the size of the scores doesn't matter


def scaled_scores(q, k):
    return scale_scores(torch.matmul(q, k.transpose(-2, -1)), q.shape[-1])
