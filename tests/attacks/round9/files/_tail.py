

# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
