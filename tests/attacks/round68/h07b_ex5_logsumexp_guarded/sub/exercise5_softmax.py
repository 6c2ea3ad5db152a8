import math
import torch

def softmax(x, dim=-1):
    # log-sum-exp formulation; an all -inf slice is replaced by zeros BEFORE logsumexp
    dead = (x == float('-inf')).all(dim=dim, keepdim=True)
    xs = torch.where(dead, torch.zeros_like(x), x)
    out = torch.exp(xs - torch.logsumexp(xs, dim=dim, keepdim=True))
    return torch.where(dead, torch.zeros_like(out), out)

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = torch.einsum('...qd,...kd->...qk', q, k) / d_k ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, dim=-1)
    out = torch.einsum('...qk,...kd->...qd', weights, v)
    return out, weights
