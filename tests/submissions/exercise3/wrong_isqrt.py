"""Exercise 3 with an integer square root: `math.isqrt(d_k)` is √d_k only when d_k is a perfect
square (isqrt(130) = 11, √130 ≈ 11.4), so every width the tests use that is not one is scaled wrong.

Diagnosis: divisor:⌊√d_k⌋.
"""

import math


def scale_scores(scores, d_k):
    return scores / math.isqrt(d_k)  # an int keeps the dtype of the scores


def scaled_scores(q, k):
    return scale_scores(q @ k.mT, q.size(-1))
