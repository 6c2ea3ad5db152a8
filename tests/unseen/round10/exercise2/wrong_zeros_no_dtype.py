# lumen-unseen: exercise=2 kind=wrong
# mistake: attention_scores fills a torch.zeros(...) made without dtype=/device= in a loop, so the result is always float32 on the CPU
# ideal: the output tensor is created with torch.zeros(shape) and no dtype/device, so float64/float16/bfloat16 inputs give float32 scores (float64 precision lost) and CUDA inputs give CPU scores; make it with dtype=q.dtype, device=q.device (or just q @ k^T)
# expect: dtype|float32|float64|double|precision|device|zeros|cpu|new_zeros|zeros_like
# reject: transpos
# reject: scal(e|ing)|sqrt|√
# reject: detach
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
    L_q, L_k = q.size(-2), k.size(-2)
    S = torch.zeros(*q.shape[:-2], L_q, L_k)
    for i in range(L_q):
        for j in range(L_k):
            S[..., i, j] = (q[..., i, :] * k[..., j, :]).sum(-1)  # q_i . k_j
    return S
