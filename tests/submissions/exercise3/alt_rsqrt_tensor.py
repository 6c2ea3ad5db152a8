"""Exercise 3, correct: the scale as a 0-d tensor (torch.rsqrt), which keeps the scores' dtype and
device, and einsum for the scores (a correct alternative).

Diagnosis: none.
"""

import torch


def scale_scores(scores, d_k):
    return scores * torch.rsqrt(torch.tensor(float(d_k), dtype=scores.dtype, device=scores.device))


def scaled_scores(q, k):
    return scale_scores(torch.einsum("...id,...jd->...ij", q, k), q.shape[-1])
