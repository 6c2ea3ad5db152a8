# Control: a correct but slow solution (a Python loop over every row): its honest tier is far below on par.
import math
import torch

def scale_scores(scores, d_k):
    out = torch.empty_like(scores)
    flat_in, flat_out = scores.reshape(-1, scores.shape[-1]), out.view(-1, scores.shape[-1])
    s = math.sqrt(d_k)
    for i in range(flat_in.shape[0]):
        flat_out[i] = flat_in[i] / s
    return out

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
