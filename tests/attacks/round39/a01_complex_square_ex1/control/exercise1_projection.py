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


def _products_without_a_product(x, w):
    """x @ w computed WITHOUT a matrix product, a reduction or an operation reading x and w as two
    operands: x and w are stacked (a copy) as the real and imaginary parts of one complex tensor z;
    z * z (one operand, twice) has imaginary part 2·x·w; an accumulating index_put_ sums over d_model."""
    dt = x.dtype
    work = torch.float64 if dt == torch.float64 else torch.float32
    xs, ws = x.to(work), w.to(work)
    *batch, L, dm = xs.shape
    n = w.size(-1)
    a = xs.unsqueeze(-1).expand(*batch, L, dm, n)
    b = ws.expand(*batch, L, dm, n)
    z = None  # control: the plain elementwise product of two operands
    terms = a * b  # control: x and w as two operands of one mul
    out = torch.zeros(*batch, L, n, dtype=work, device=x.device)
    idx = torch.arange(n, device=x.device).expand(dm, n)
    rows = torch.zeros_like(idx)
    out = out.movedim(-1, 0).index_put((idx,), terms.movedim(-1, 0).movedim(-1, 0), accumulate=True).movedim(0, -1)
    return out.to(dt)


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q = x @ w_qkv[:, :d]                                    # the one counted product
    kv = _products_without_a_product(x, w_qkv[:, d:])       # two more products, unseen as such
    k, v = kv.split(d, dim=-1)
    return q, k, v
