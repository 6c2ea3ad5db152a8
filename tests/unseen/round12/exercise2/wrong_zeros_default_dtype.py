# lumen-unseen: exercise=2 kind=wrong
# mistake: fills the scores one key at a time into torch.zeros(...) made without dtype=/device=, so the result is always float32 on the CPU (float64 loses precision, float16 comes back float32, GPU inputs fail)
# ideal: attention_scores: the output buffer is created with the default dtype and device; pass dtype=q.dtype, device=q.device (or avoid the buffer: q @ k.transpose(-2, -1))
# expect: dtype|device|float32|float64|torch\.zeros
# reject: \bscale\b|√|sqrt|in-?place|wrong shape|batch dims?
"""Exercise 2 — Score every key.

Chapter section: "Step 2 — Score every key".

How well does each query match each key? Their dot product: large when the two vectors point the
same way. For all queries against all keys at once that is one matrix product,

    S = Q K^T    with shape (L_q, L_k): row i holds query i's score against every key.

Leading batch dims (batch, heads, ...) may sit in front; the number of queries L_q and of keys L_k
need not be equal.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import torch


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    L_k = k.size(-2)
    lead = torch.broadcast_shapes(q.shape[:-2], k.shape[:-2])
    scores = torch.zeros(*lead, q.size(-2), L_k)
    for j in range(L_k):
        scores[..., j] = (q @ k[..., j, :].unsqueeze(-1)).squeeze(-1)
    return scores
