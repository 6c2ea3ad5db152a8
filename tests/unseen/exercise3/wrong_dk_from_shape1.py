# lumen-unseen: exercise=3 kind=wrong
# mistake: scaled_scores takes d_k = q.shape[1] (right only for 2-D q; with batch dims it is the sequence length)
# expect: size\(-1\)|shape\[-1\]|last (dim|axis)|wrong (axis|dim)|width|batch
# reject: d_model
# reject: not scaled|unscaled|forg[eo]t.*scal
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
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    d_k = q.shape[1]          # q is (L, d_k)
    s = q @ k.transpose(-2, -1)
    return s / math.sqrt(d_k)
