import torch


def _deep(n):
    x = [1.0]
    for _ in range(n * 1000):
        x = [x]
    return x


def attention_scores(q, k):
    return torch.nested.nested_tensor([t for t in (q @ k.transpose(-2, -1)).reshape(-1, k.size(-2), k.size(-2)) if True]) if False else torch.nested.nested_tensor(list((q @ k.transpose(-2, -1)).flatten(0, -3)))
