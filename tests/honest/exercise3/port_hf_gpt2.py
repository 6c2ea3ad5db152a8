"""Port of Hugging Face transformers (models/gpt2/modeling_gpt2.py, GPT2Attention._attn): scores by
torch.matmul, then `attn_weights / torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype,
device=attn_weights.device)`. Adapted to the stub: there is no value tensor here, so the width is
d_k (scale_scores) or key.size(-1) (scaled_scores). Kept: the 0-d torch.full divisor in the scores'
dtype and device, torch.matmul with transpose(-1, -2).
"""

# --- the stub's own module docstring, kept as written ---
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
    attn_weights = scores
    attn_weights = attn_weights / torch.full(
        [], d_k ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
    )
    return attn_weights


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    query, key = q, k
    attn_weights = torch.matmul(query, key.transpose(-1, -2))
    attn_weights = attn_weights / torch.full(
        [], key.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
    )
    return attn_weights
