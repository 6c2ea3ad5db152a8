"""Exercise 2 with a hand-written backward pass (a torch.autograd.Function) whose gradients multiply the
upstream gradient without transposing it: right forward, and shapes that fit only while L_q = L_k.

Diagnosis: crash:custom-backward-shapes.
"""

import torch


class _Scores(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q, k)
        return q @ k.transpose(-2, -1)

    @staticmethod
    def backward(ctx, upstream):
        q, k = ctx.saved_tensors
        return upstream @ k, upstream @ q  # k's should be upstreamᵀ @ q


def attention_scores(q, k):
    return _Scores.apply(q, k)
