"""a08: torch's softmax reached through torch.compile (reach.py allows `torch.compile`): dynamo traces the
function once, then runs its captured graph; are the rules (the function mode, the kernels) still in force?"""
import math

import torch


def _softmax(x, dim=-1):
    out = torch.nn.functional.softmax(x, dim=dim)
    return torch.nan_to_num(out, nan=0.0)


softmax = torch.compile(_softmax, backend="eager", dynamic=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
