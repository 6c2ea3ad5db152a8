import math


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
