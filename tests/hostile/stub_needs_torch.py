"""The untouched stub of exercise 3, whose `import torch` must find the real torch even with a
torch.py and a numpy.py beside it (they are in the same folder)."""

import torch


def scale_scores(scores, d_k):
    raise NotImplementedError("Exercise 3: divide the scores by √d_k")


def scaled_scores(q, k):
    return torch.ones(1)
