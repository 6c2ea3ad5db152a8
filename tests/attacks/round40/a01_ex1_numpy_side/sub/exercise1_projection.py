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
    # BEGIN SOLUTION
    # HINT: Exercise 1: Q = X W_Q, K = X W_K, V = X W_V, one `@` each — see 'Step 1 — Project: make a query, keys and values' in the chapter
    q = x @ w_q  # (..., L, d_k)
    k = x @ w_k  # (..., L, d_k)
    v = x @ w_v  # (..., L, d_v)
    return q, k, v
    # END SOLUTION


import numpy as np


def _np_buffer(shape, like_dtype=np.float64):
    """A torch tensor over numpy's memory (torch.as_tensor shares it), and the numpy array itself."""
    arr = np.zeros(shape, dtype=like_dtype)
    return torch.as_tensor(arr), arr


def fused_project(x, w_qkv):
    """Q from one torch product x @ W_Q; K and V from two more products computed by numpy, on copies
    of x and w_qkv that torch wrote into numpy's memory (a copy, which computes nothing)."""
    if x.requires_grad or w_qkv.requires_grad or x.dtype not in (torch.float32, torch.float64) \
            or x.device.type != "cpu":
        qkv = x @ w_qkv
        d = w_qkv.size(-1) // 3
        return qkv.split(d, dim=-1)
    d = w_qkv.size(-1) // 3
    q = x @ w_qkv[:, :d]  # product 1, in torch
    xt, xn = _np_buffer(tuple(x.shape))
    xt.copy_(x)  # x's values now readable by numpy
    wt, wn = _np_buffer(tuple(w_qkv.shape))
    wt.copy_(w_qkv)
    out_t, out_n = _np_buffer((*x.shape[:-1], 3 * d))
    out_t[..., :d].copy_(q)  # out holds x's and w's data (q), as far as torch knows
    out_n[..., d:2 * d] = np.matmul(xn, wn[:, d:2 * d])  # product 2: K, in numpy
    out_n[..., 2 * d:] = np.matmul(xn, wn[:, 2 * d:])  # product 3: V, in numpy
    out = out_t.to(x.dtype)
    return out.split(d, dim=-1)
