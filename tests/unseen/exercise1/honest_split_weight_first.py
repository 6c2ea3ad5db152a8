# lumen-unseen: exercise=1 kind=wrong
# mistake: torch.matmul in project; fused_project splits the weight into W_Q, W_K, W_V first and reuses project: its values are right, but it runs three matrix products where the stub asks for ONE. Written as honest by the corpus's author; reclassified by the lead once the stub's rule was graded (issue 20: every written rule graded).
# expect: one (matrix )?product|three (matrix )?products|3 matrix products|single product
"""Exercise 1 — Project: queries, keys and values.

Chapter section: "Step 1 — Project: make a query, keys and values".

Every token asks a question (its query), wears a label (its key) and carries content (its value).
All three are learned linear projections of the token's embedding. Stack the L embeddings as the
rows of X (L, d_model) and each projection is a single matrix product:

    Q = X W_Q    K = X W_K    V = X W_V

Any number of leading batch dims may sit in front of (L, d_model); `@` handles them for you.
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
    outs = []
    for w in (w_q, w_k, w_v):
        outs.append(torch.matmul(x, w))
    q, k, v = outs
    return q, k, v


def fused_project(x, w_qkv):
    """The same three projections from ONE matrix product, as real models do it.

    x:     (..., L, d_model)
    w_qkv: (d_model, 3d)  [W_Q | W_K | W_V] side by side: columns 0..d-1 are W_Q,
                          d..2d-1 are W_K, 2d..3d-1 are W_V
    Returns (q, k, v), each (..., L, d): identical to project(x, W_Q, W_K, W_V).
    """
    w_q, w_k, w_v = torch.tensor_split(w_qkv, 3, dim=1)
    return project(x, w_q, w_k, w_v)
