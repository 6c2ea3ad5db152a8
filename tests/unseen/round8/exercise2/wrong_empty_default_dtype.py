# lumen-unseen: exercise=2 kind=wrong
# mistake: fills a torch.empty result made without dtype or device, so it is float32 on the CPU whatever q is
# ideal: The result comes from torch.empty(...) with no dtype= or device=, i.e. the default float32 on the CPU; float64 scores lose precision and come back float32, fp16/bf16 come back float32, and GPU inputs give CPU scores; pass dtype=q.dtype, device=q.device (or use q @ kᵀ).
# expect: torch\.empty|default
# expect: dtype|float32|device
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
    L_q, L_k = q.shape[-2], k.shape[-2]
    out = torch.empty(*q.shape[:-2], L_q, L_k)
    for i in range(L_q):
        out[..., i, :] = (q[..., i : i + 1, :] * k).sum(-1)
    return out
