import torch


def _deep(n):
    x = [1.0]
    for _ in range(n * 1000):
        x = [x]
    return x


def attention_scores(q, k):
    return torch.quantize_per_tensor((q @ k.transpose(-2, -1)).float(), 0.01, 0, torch.qint32)
