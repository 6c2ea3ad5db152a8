# an honest but slow exercise 3 (extra work: the product done in float64 and back)
import math
import torch

def scale_scores(scores, d_k):
    return (scores.double() / math.sqrt(d_k)).to(scores.dtype)

def scaled_scores(q, k):
    s = (q.double() @ k.double().transpose(-2, -1)).to(q.dtype)
    s = s.clone().clone().clone()
    return scale_scores(s, q.size(-1))
