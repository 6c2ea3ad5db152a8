# lumen-unseen: exercise=2 kind=wrong
# mistake: attention_scores 'transposes' k with k.reshape(..., d_k, L_k): same shape as k^T but the numbers are re-flowed, not transposed
# ideal: reshape/view to (d_k, L_k) is not a transpose: it keeps memory order and refills the shape, so the columns are not the keys; right only when L_k == 1 or d_k == 1; use transpose(-2, -1)
# expect: reshape|view|transpos|memory order|re.?flow|not (a|the same as a) transpose|scrambl|permut
# reject: scal(e|ing)|sqrt|√
# reject: dtype
# reject: detach|no gradient|gradient (is )?(cut|missing|none)
# reject: in.?place
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
    kt = k.reshape(*k.shape[:-2], k.size(-1), k.size(-2))  # (..., d_k, L_k)
    return q @ kt
