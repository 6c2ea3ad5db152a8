# exercise 5's softmax as exp(x - logsumexp(x)): torch's logsumexp does the max-subtraction and the sum
import math
import torch


def softmax(x, dim=-1):
    lse = torch.logsumexp(x, dim=dim, keepdim=True)
    lse = lse.masked_fill(lse == float("-inf"), 0.0)   # an all -inf slice: exp(-inf - 0) = 0
    return torch.exp(x - lse)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)
    return weights @ v, weights
