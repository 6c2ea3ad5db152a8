# lumen-unseen: exercise=2 kind=wrong
# mistake: attention_scores is a custom autograd.Function whose forward is right but whose backward returns grad @ q for k's gradient instead of gradᵀ @ q.
# ideal: The forward is right but your hand-written backward gives k the gradient grad @ q; dL/dK is grad.transpose(-2, -1) @ q (or drop the custom Function and let autograd differentiate q @ k.transpose(-2, -1)).
# expect: (?i)(backward|gradient|autograd|grad(ient)? (of|for|w\.r\.t\.) k)
# reject: (?i)(dtype|device|in[- ]place|scale|sqrt|forward is wrong)
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


class _Scores(torch.autograd.Function):
    """S = Q Kᵀ with a hand-written backward (saves autograd the bookkeeping)."""

    @staticmethod
    def forward(ctx, q, k):
        ctx.save_for_backward(q, k)
        return q @ k.transpose(-2, -1)

    @staticmethod
    def backward(ctx, grad):
        q, k = ctx.saved_tensors
        return grad @ k, grad @ q


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    return _Scores.apply(q, k)
