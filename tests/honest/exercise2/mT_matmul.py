import torch


def attention_scores(q, k):
    return torch.matmul(q, k.mT)
