import math
import torch

def softmax(x, dim=-1):
    # log-sum-exp formulation; a fully -inf slice has lse = -inf
    lse = torch.logsumexp(x, dim=dim, keepdim=True)
    finite = torch.isfinite(lse)
    safe_lse = torch.where(finite, lse, torch.zeros_like(lse))
    safe_x = torch.where(finite, x, torch.zeros_like(x))
    out = torch.exp(safe_x - safe_lse)
    return torch.where(finite, out, torch.zeros_like(out))

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = torch.einsum('...qd,...kd->...qk', q, k) / d_k ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, dim=-1)
    out = torch.einsum('...qk,...kd->...qd', weights, v)
    return out, weights
