# lumen-unseen: exercise=2 kind=wrong
# mistake: attention_scores squeezes q and k to 'drop batch dims of size 1' before the product, so any size-1 dim (batch 1, one query L_q = 1, d_k = 1) vanishes from the result or crashes
# ideal: q.squeeze()/k.squeeze() remove every dim of size 1, not only the batch: with B = 1 the batch dim is lost, with L_q = 1 (one query, as in generation) the result is (L_k,) or fails; the output shape must be (..., L_q, L_k)
# expect: squeez|size.?1|singleton|dim(ension)?s? (of size 1|dropped|lost|removed)|L_q ?= ?1|batch (dim|of|size) ?(of )?1|one query|single query
# reject: scal(e|ing)|sqrt|√
# reject: dtype
# reject: detach|no gradient|gradient (is )?(cut|missing|none)
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
    q2, k2 = q.squeeze(), k.squeeze()  # drop batch dims of size 1
    return q2 @ k2.transpose(-2, -1)
