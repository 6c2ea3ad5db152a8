"""Carol's exercise 3."""
import math
import torch


def scale_scores(scores, d_k):
    return torch.div(scores, math.sqrt(d_k))


def scaled_scores(q, k):
    product = q @ k.mT
    return scale_scores(product, k.size(-1))
