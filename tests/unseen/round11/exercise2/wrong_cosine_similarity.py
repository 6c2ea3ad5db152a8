# lumen-unseen: exercise=2 kind=wrong
# mistake: attention_scores L2-normalises q and k first (cosine similarity, as in Swin-v2 / cosine attention), so S is not the raw dot product
# ideal: normalising q and k turns the dot product into a cosine similarity in [-1, 1]; the chapter's score is the plain dot product q_i . k_j, magnitudes included
# expect: normali[sz]|cosine|norm\b|unit length|magnitude|\[-1,\s*1\]|F\.normalize
# reject: swapp?(ed)? (q and k|the operands|arguments)|K\s*Q\s*\^?T|k\s*@\s*q|transpos(e|ed) (result|output)
# reject: dtype|float32|device
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
import torch.nn.functional as F


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    qn = F.normalize(q, dim=-1)
    kn = F.normalize(k, dim=-1)
    return qn @ kn.transpose(-2, -1)
