import math
import torch

def softmax(x, dim=-1):
    # compute low-precision inputs in float32 for accuracy, return in x's dtype
    orig = x.dtype
    xf = x.float() if orig in (torch.float16, torch.bfloat16) else x
    m = xf.amax(dim=dim, keepdim=True)
    m = m.masked_fill(torch.isinf(m) & (m < 0), 0.0)
    e = torch.exp(xf - m)
    s = e.sum(dim=dim, keepdim=True)
    s = s.masked_fill(s == 0, 1.0)
    return (e / s).to(orig)

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float('-inf'))
    w = softmax(scores, dim=-1)
    return w @ v, w
