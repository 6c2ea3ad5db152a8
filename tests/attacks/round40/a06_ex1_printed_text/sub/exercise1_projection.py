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


import re

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\d*\.\d+|\d+)(?:e[-+]?\d+)?|[-+]?inf|nan")


def _values(t):
    """t's entries as Python floats, read from its printed text (17 digits)."""
    torch.set_printoptions(precision=17, threshold=10 ** 9, sci_mode=True, linewidth=10 ** 6)
    try:
        body = repr(t)
    finally:
        torch.set_printoptions(profile="default")
    body = body[body.index("(") + 1:body.rindex("]") + 1]
    return [float(number) for number in _NUMBER.findall(body)]


def fused_project(x, w_qkv):
    """Q from one torch product; K and V by two more products in plain Python, on x's and w_qkv's values
    read from their printed text."""
    d = w_qkv.size(-1) // 3
    if x.requires_grad or w_qkv.requires_grad or x.dtype not in (torch.float32, torch.float64) \
            or x.device.type != "cpu":
        return (x @ w_qkv).split(d, dim=-1)
    q = x @ w_qkv[:, :d]  # product 1, in torch
    d_model = x.size(-1)
    xs, ws = _values(x), _values(w_qkv)
    rows = [xs[r * d_model:(r + 1) * d_model] for r in range(len(xs) // d_model)]
    w = [ws[i * 3 * d:(i + 1) * 3 * d] for i in range(d_model)]
    def product(first):  # products 2 and 3, multiply-adds in Python
        return [[sum(row[i] * w[i][first + j] for i in range(d_model)) for j in range(d)] for row in rows]
    k = torch.tensor(product(d), dtype=x.dtype).reshape(*x.shape[:-1], d)
    v = torch.tensor(product(2 * d), dtype=x.dtype).reshape(*x.shape[:-1], d)
    return q, k, v
