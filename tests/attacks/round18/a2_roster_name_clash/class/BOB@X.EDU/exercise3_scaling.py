import math
def scale_scores(s, d_k):
    return s / d_k
def scaled_scores(q, k):
    return q @ k.transpose(-2, -1)
