import math
import torch

def scale_scores(scores, d_k):
    return scores * (1.0 / math.sqrt(d_k))

def scaled_scores(q, k):
    d_k = q.shape[-1]
    # scale the queries first (as some implementations do), then the product
    return (q * d_k ** -0.5) @ k.transpose(-2, -1)
