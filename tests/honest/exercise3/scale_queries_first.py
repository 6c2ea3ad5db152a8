import math


def scale_scores(scores, d_k):
    return scores * (1.0 / math.sqrt(d_k))


def scaled_scores(q, k):
    # dividing the queries first is the same maths: (Q / √d) Kᵀ = Q Kᵀ / √d
    return (q / math.sqrt(q.size(-1))) @ k.transpose(-2, -1)
