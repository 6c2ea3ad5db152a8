# lumen-unseen: exercise=2 kind=wrong
# mistake: fills a torch.zeros score buffer key by key but creates it without dtype=, so float64 scores are rounded to float32 and half-precision inputs come back float32
# ideal: attention_scores allocates its result with torch.zeros(..., device=q.device) but no dtype=, so the buffer is float32: float64 scores are rounded to float32 when written into it and float16/bfloat16 inputs come back as float32; create it with dtype=q.dtype (or just compute q @ k.transpose(-2, -1)).
# expect: attention_scores|scor(e|es|ing)
# expect: dtype|float32|float64|zeros|buffer|precision
# reject: scal(e|ing) by|sqrt|√
# reject: \.T\b|revers
# reject: in.place (op|edit|change).*(input|caller)
"""Exercise 2 — Score every key.

Chapter section: "Step 2 — Score every key".

How well does each query match each key? Their dot product: large when the two vectors point the
same way. For all queries against all keys at once that is one matrix product,

    S = Q K^T    with shape (L_q, L_k): row i holds query i's score against every key.

Leading batch dims (batch, heads, ...) may sit in front; the number of queries L_q and of keys L_k
need not be equal.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too, on a GPU) and on their device. Off limits, as in every
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
    scores = torch.zeros(*q.shape[:-2], L_q, L_k, device=q.device)
    for j in range(L_k):
        # every query against key j
        scores[..., j] = (q * k[..., j:j + 1, :]).sum(dim=-1)
    return scores
