# lumen-unseen: exercise=3 kind=wrong
# mistake: multiplies by sqrt(d_k) instead of dividing
# expect: multipl|times|×|instead of divid|invert|reciprocal|upside
# reject: not scaled|unscaled
"""Exercise 3 — Scale by √d_k.

Chapter section: "Why divide by √d_k?".

A dot product of two d_k-wide vectors with unit-variance entries has variance d_k, so raw scores
spread out as √d_k grows (about ±8 at d_k = 64). Softmax turns score gaps into weight ratios, so
wide scores make it a hard argmax with almost no gradient. Dividing by √d_k brings the spread back
to about 1 at every width:

    scaled scores = Q K^T / √d_k
"""

import math

import torch


def scale_scores(scores, d_k):
    """Divide raw scores by √d_k.

    scores: (..., L_q, L_k)  raw scores Q K^T
    d_k:    int              width of the queries and keys
    Returns a new tensor (..., L_q, L_k): scores / √d_k.
    """
    scale = math.sqrt(d_k)
    return scores * scale


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    d_k = q.size(-1)
    return scale_scores(q @ k.transpose(-2, -1), d_k)
