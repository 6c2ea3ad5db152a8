"""Alice's own exercise 3."""
import math
import torch


def scale_scores(scores, d_k):
    # divide every raw score by the square root of the key width
    denominator = math.sqrt(float(d_k))
    result = scores / denominator
    return result


def scaled_scores(q, k):
    width = q.shape[-1]
    keys_t = torch.transpose(k, -2, -1)
    raw = torch.matmul(q, keys_t)
    return scale_scores(raw, width)
