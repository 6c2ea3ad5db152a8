import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = m.masked_fill(m == float('-inf'), 0.0)
    e = (x - m).exp_()                    # in place on a fresh temporary
    s = e.sum(dim=dim, keepdim=True)
    s = s.masked_fill_(s == 0, 1.0)       # in place on a fresh temporary (sum's backward needs no output)
    return e / s

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-1, -2))
    scores.div_(math.sqrt(q.size(-1)))     # in place: matmul's backward does not need its output
    if mask is not None:
        scores.masked_fill_(~mask, float('-inf'))
    weights = softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
