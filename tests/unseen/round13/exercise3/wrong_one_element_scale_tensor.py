# lumen-unseen: exercise=3 kind=wrong
# mistake: scale_scores multiplies by torch.rsqrt(torch.tensor([d_k], dtype=torch.float32)), a 1-element CPU float32 tensor that takes part in type promotion, so float16/bfloat16 scores come back float32 and GPU scores meet a CPU tensor.
# ideal: The scale is a float32 CPU tensor with a dimension, so it promotes half-precision scores to float32 and is on the wrong device; divide by the Python float math.sqrt(d_k) instead.
# expect: (?i)(dtype|float32|device|cpu|torch\.tensor|promot|python (float|number)|math\.sqrt)
# reject: (?i)(precedence|in[- ]place|axis|value is wrong)
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
    return scores * torch.rsqrt(torch.tensor([d_k], dtype=torch.float32))


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
