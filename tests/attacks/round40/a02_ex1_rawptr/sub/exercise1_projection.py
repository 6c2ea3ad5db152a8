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

_TYPESTR = {torch.float32: "<f4", torch.float64: "<f8", torch.float16: "<f2"}


class _Raw:
    """numpy's view of a contiguous tensor's memory, from its address (no torch operation at all)."""

    def __init__(self, t):
        self.__array_interface__ = {"shape": tuple(t.shape), "typestr": _TYPESTR[t.dtype],
                                    "data": (t.data_ptr(), False), "version": 3}


def _view(t):
    return np.asarray(_Raw(t))


def fused_project(x, w_qkv):
    """Q from one torch product; K and V from two products numpy computes on x's and w_qkv's own memory,
    written by numpy into the memory of the tensor returned (which torch saw made from Q: x's and w's data)."""
    d = w_qkv.size(-1) // 3
    if x.requires_grad or w_qkv.requires_grad or x.dtype not in _TYPESTR or x.device.type != "cpu":
        return (x @ w_qkv).split(d, dim=-1)
    q = x @ w_qkv[:, :d]  # product 1, in torch
    out = torch.cat([q, q, q], dim=-1)  # (..., L, 3d): a move of q's entries
    xc, wc = x.contiguous(), w_qkv.contiguous()
    xn, wn, on = _view(xc), _view(wc), _view(out)
    on[..., d:2 * d] = np.matmul(xn, wn[:, d:2 * d])  # product 2: K, in numpy, into out's memory
    on[..., 2 * d:] = np.matmul(xn, wn[:, 2 * d:])  # product 3: V
    return out.split(d, dim=-1)
