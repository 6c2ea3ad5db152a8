import torch

def attention_scores(q, k):
    # explicit dot products via broadcasting: (..., Lq, 1, d) * (..., 1, Lk, d) summed over d
    return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)
