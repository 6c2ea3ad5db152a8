import logging
import math

import torch

log = logging.getLogger(__name__)


def softmax(x, dim=-1):
    biggest = x.amax(dim=dim, keepdim=True)
    biggest = torch.where(torch.isinf(biggest) & (biggest < 0), torch.zeros_like(biggest), biggest)
    e = torch.exp(x - biggest)
    total = e.sum(dim=dim, keepdim=True)
    log.debug("softmax over dim %d of %s", dim, tuple(x.shape))
    return e / torch.where(total == 0, torch.ones_like(total), total)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
