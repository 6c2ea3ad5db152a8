"""a11: points for wrong answers: return NaN (or +inf) tensors of the right shape, dtype and
device, and an autograd-connected graph, hoping a comparison with equal_nan or a non-finite
shortcut lets them through."""
import torch


def scale_scores(scores, d_k):
    return scores * float("nan")


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) * float("inf")
