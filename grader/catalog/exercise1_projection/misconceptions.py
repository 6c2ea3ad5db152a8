"""Exercise 1: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""


from grader.diagnosis.mutants import Misconception, WALKTHROUGH, qkv_order

MISCONCEPTIONS = (
    Misconception(
        "projection-transposed", (1,),
        "You computed x Wᵀ (nn.Linear's (out, in) layout, as F.linear does); here W is (d_model, d_k), so "
        "Q = X W_Q is x @ w_q: see 'Step 1 — Project: make a query, keys and values'",
        ({"weight_product": lambda self, x, w: x @ w.transpose(-2, -1)},),
        {1: [("    q = x @ w_q  #", "    q = x @ w_q.T  #"), ("    k = x @ w_k  #", "    k = x @ w_k.T  #"),
             ("    v = x @ w_v  #", "    v = x @ w_v.T  #")]},
    ),
    Misconception(
        "fused-split-wrong-axis", (1,),
        "You cut x @ w_qkv along dim 1, which is the features only when there are no batch dims: cut the "
        "last dim (dim=-1), where W_Q | W_K | W_V sit side by side: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.chunk(3, dim=1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, k, v = qkv.chunk(3, dim=1)")]},
    ),
    Misconception(
        "fused-split-d-model", (1,),
        "You cut x @ w_qkv into pieces d_model wide, as the chapter's multi-head layer does; here each of "
        "W_Q, W_K, W_V has d = w_qkv.size(-1) // 3 columns: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.split(d_model, dim=-1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)\n    return q, k, v",
              "    return qkv.split(x.size(-1), dim=-1)")]},
    ),
    Misconception(
        "qkv-order-swapped", (1, 6),
        "Your q, k and v come out in the wrong order: the weights are [W_Q | W_K | W_V] side by side, so the "
        "first third of the columns makes q, the second k and the last v: see " + WALKTHROUGH,
        tuple(qkv_order(order) for order in ((0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, v, k = qkv.split(d, dim=-1)")],
         6: [("        q, k, v = self.qkv(x).split(D, dim=-1)", "        k, q, v = self.qkv(x).split(D, dim=-1)")]},
    ),
)
