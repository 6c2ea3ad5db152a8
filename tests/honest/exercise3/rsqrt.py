import torch


def scale_scores(scores, d_k):
    return scores * torch.rsqrt(torch.tensor(float(d_k), dtype=scores.dtype, device=scores.device))


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-1, -2), q.shape[-1])
