import math

import torch


class StableSoftmax(torch.autograd.Function):
    """softmax with its own backward: dx = y * (g - sum(g * y))."""

    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        y = e / torch.where(s == 0, torch.ones_like(s), s)
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return y * (grad - (grad * y).sum(dim=ctx.dim, keepdim=True)), None


def softmax(x, dim=-1):
    return StableSoftmax.apply(x, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
