"""Exercise 1 — Project: queries, keys and values.

Chapter section: "Step 1 — Project: make a query, keys and values".

Every token asks a question (its query), wears a label (its key) and carries content (its value).
All three are learned linear projections of the token's embedding. Stack the L embeddings as the
rows of X (L, d_model) and each projection is a single matrix product:

    Q = X W_Q    K = X W_K    V = X W_V

Any number of leading batch dims may sit in front of (L, d_model); `@` handles them for you. x
may also be laid out in memory in any order (a batch its caller transposed): `@` takes it as it is.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import torch


def project(x, w_q, w_k, w_v):
    """Make the queries, keys and values of every token with three matrix products.

    x:   (..., L, d_model)  one row per token
    w_q: (d_model, d_k)     W_Q
    w_k: (d_model, d_k)     W_K (same width as W_Q: queries and keys are compared by dot product)
    w_v: (d_model, d_v)     W_V
    Returns (q, k, v): q (..., L, d_k), k (..., L, d_k), v (..., L, d_v).
    """
    q = x @ w_q.T  # (..., L, d_k)
    k = x @ w_k.T  # (..., L, d_k)
    v = x @ w_v.T  # (..., L, d_v)
    return q, k, v


def fused_project(x, w_qkv):
    """The same three projections from ONE matrix product, as real models do it.

    x:     (..., L, d_model)
    w_qkv: (d_model, 3d)  [W_Q | W_K | W_V] side by side: columns 0..d-1 are W_Q,
                          d..2d-1 are W_K, 2d..3d-1 are W_V
    Returns (q, k, v), each (..., L, d): identical to project(x, W_Q, W_K, W_V).
    """
    qkv = x @ w_qkv  # (..., L, 3d)
    d = w_qkv.size(-1) // 3
    q, k, v = qkv[..., 0::3], qkv[..., 1::3], qkv[..., 2::3]  # every third column
    return q, k, v
