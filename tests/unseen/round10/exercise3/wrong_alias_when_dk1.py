# lumen-unseen: exercise=3 kind=wrong
# mistake: scale_scores returns the input tensor itself when d_k == 1 (shortcut 'nothing to divide'), breaking the 'returns a new tensor' rule
# ideal: for d_k == 1 scale_scores returns `scores` itself, not a new tensor: the result aliases the caller's scores, so an in-place edit of one (e.g. masked_fill_) changes the other; always return scores / √d_k
# expect: alias|same (tensor|object)|not a new tensor|new tensor.{0,30}(d_k|1\b)|returns? (the )?(input|scores|its input) itself|shortcut|early return|special.?case
# reject: transpos
# reject: dtype
# reject: sqrt.{0,20}(missing|instead)
# reject: multipl
"""Exercise 3 — Scale by √d_k.

Chapter section: "Why divide by √d_k?".

A dot product of two d_k-wide vectors with unit-variance entries has variance d_k, so raw scores
spread out as √d_k grows (about ±8 at d_k = 64). Softmax turns score gaps into weight ratios, so
wide scores make it a hard argmax with almost no gradient. Dividing by √d_k brings the spread back
to about 1 at every width:

    scaled scores = Q K^T / √d_k

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import math

import torch


def scale_scores(scores, d_k):
    """Divide raw scores by √d_k.

    scores: (..., L_q, L_k)  raw scores Q K^T
    d_k:    int > 0          width of the queries and keys
    Returns a new tensor (..., L_q, L_k): scores / √d_k.
    """
    if d_k == 1:
        return scores  # sqrt(1) = 1: nothing to divide
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
