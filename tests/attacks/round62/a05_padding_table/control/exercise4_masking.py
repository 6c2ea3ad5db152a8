import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def _slow_padding(lengths, L):
    # deliberately slow: a Python loop over every sequence and every key
    rows = [[j < int(n) for j in range(L)] for n in lengths.tolist()]
    return torch.tensor(rows, dtype=torch.bool, device=lengths.device).reshape(len(rows), 1, L)


def padding_mask(lengths, L):
    return _slow_padding(lengths, L)
