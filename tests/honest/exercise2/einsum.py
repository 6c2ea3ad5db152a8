import torch


def attention_scores(q, k):
    return torch.einsum("...id,...jd->...ij", q, k)
