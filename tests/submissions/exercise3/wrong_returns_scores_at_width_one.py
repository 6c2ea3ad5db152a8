"""Exercise 3 returning the scores themselves at d_k = 1, "nothing to divide": the values are right, but
the docstring asks for a new tensor, and the caller's scores now change with the result.

Diagnosis: returns-an-input.
"""

import math


def scale_scores(scores, d_k):
    if d_k == 1:
        return scores  # √1 = 1
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
