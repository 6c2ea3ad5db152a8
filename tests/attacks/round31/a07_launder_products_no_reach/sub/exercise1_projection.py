"""Exercise 1 without any reach: fused_project runs THREE matrix products, but two of them on copies
of x and w_qkv rebuilt from Python lists (torch.tensor(t.tolist())), which the grader's probe does not
count as the inputs' data. Gradients come from an autograd.Function whose backward is not measured."""

import torch


def _fresh(t):
    return torch.tensor(t.detach().tolist(), dtype=t.dtype, device=t.device)


class _Product(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return _fresh(x) @ _fresh(w)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        grad_x = grad @ w.transpose(-2, -1)
        grad_w = (x.transpose(-2, -1) @ grad)
        while grad_w.dim() > 2:
            grad_w = grad_w.sum(0)
        return grad_x, grad_w


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    q = x @ w_qkv[:, :d]
    k = _Product.apply(x, w_qkv[:, d:2 * d])
    v = _Product.apply(x, w_qkv[:, 2 * d:])
    return q, k, v
