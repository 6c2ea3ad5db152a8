# lumen-unseen: exercise=2 kind=honest
# method: broadcast batch dims, flatten them to one, torch.bmm with k.transpose(1, 2), reshape back
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
    batch = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    L_q, d = q.shape[-2:]
    L_k = k.shape[-2]
    q3 = q.expand(*batch, L_q, d).reshape(-1, L_q, d)
    k3 = k.expand(*batch, L_k, d).reshape(-1, L_k, d)
    s = torch.bmm(q3, k3.transpose(1, 2))
    return s.reshape(*batch, L_q, L_k)
