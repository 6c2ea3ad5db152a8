s = 'í €'
import math
def scale_scores(s, d_k):
    return s / math.sqrt(d_k)
def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
