import math
import torch

def scale_scores(scores, d_k):
    return scores / d_k

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
