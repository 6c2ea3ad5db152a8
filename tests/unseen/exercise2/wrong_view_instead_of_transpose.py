# lumen-unseen: exercise=2 kind=wrong
# mistake: flips k's last two dims with .view(..., d_k, L_k) instead of transpose, which scrambles the entries
# expect: view|reshap
# reject: not transposed|forg[eo]t (to )?transpose|missing transpose
"""Exercise 2 — Score every key.

Chapter section: "Step 2 — Score every key".

How well does each query match each key? Their dot product: large when the two vectors point the
same way. For all queries against all keys at once that is one matrix product,

    S = Q K^T    with shape (L_q, L_k): row i holds query i's score against every key.

Leading batch dims (batch, heads, ...) may sit in front; the number of queries L_q and of keys L_k
need not be equal.
"""

import torch


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    L_k, d_k = k.shape[-2], k.shape[-1]
    k_t = k.reshape(*k.shape[:-2], d_k, L_k)
    return q @ k_t
