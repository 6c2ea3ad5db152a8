"""Exercise 1: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py).

In catalogue order: the first one named decides an "either … or" diagnosis. `edits` turn the
instructor's solution of each exercise into a student file making the mistake."""


from grader.diagnosis.mutants import Misconception, WALKTHROUGH, qkv_order

PROJECT = "'Step 1 — Project: make a query, keys and values'"

# causes the suites' messages name themselves (no value shows them), and level 1 of their hint ladder
SEVERAL_PRODUCTS = "fused-project-several-products"
CAUSES = {
    SEVERAL_PRODUCTS: "The fused projection exists so that X meets the three weight matrices, laid side by side, in a "
                      "single matrix product; the queries, keys and values are cut apart afterwards. Yours "
                      "multiplies more than once. Reread " + PROJECT + ".",
}

MISCONCEPTIONS = (
    Misconception(
        "query-prescaled", (1,),
        "You scaled the queries by 1/√d_k in the projection (as Hugging Face's BART and T5 code does); here "
        "Q = X W_Q exactly, and the scaling is Step 3's, on the scores: see " + PROJECT,
        ({"project": lambda self, x, w_q, w_k, w_v: (x @ w_q * w_q.size(-1) ** -0.5, x @ w_k, x @ w_v)},),
        {1: [("    q = x @ w_q  #", "    q = x @ w_q * w_q.size(-1) ** -0.5  #")]},
        principle="Each step of the chapter does one thing: the projection makes the query, Q = X W_Q, and the "
                  "scaling by √d_k belongs to the scores, two steps later. In yours, every query points the right "
                  "way but has the wrong length, while the keys and values are right. Reread " + PROJECT + ".",
        cause="You multiplied the queries by 1/√d_k inside the projection.",
    ),
    Misconception(
        "projection-transposed", (1,),
        "You computed x Wᵀ (nn.Linear's (out, in) layout, as F.linear does); here W is (d_model, d_k), so "
        "Q = X W_Q is x @ w_q: see 'Step 1 — Project: make a query, keys and values'",
        ({"weight_product": lambda self, x, w: x @ w.transpose(-2, -1)},),
        {1: [("    q = x @ w_q  #", "    q = x @ w_q.T  #"), ("    k = x @ w_k  #", "    k = x @ w_k.T  #"),
             ("    v = x @ w_v  #", "    v = x @ w_v.T  #")]},
        principle="Each projection is the token's row vector times its weight matrix, Q = X W_Q: with W_Q of shape "
                  "(d_model, d_k), each of the token's d_model numbers meets one row of W_Q, and column j of W_Q "
                  "makes number j of the query. Yours pairs the token with the wrong side of each matrix. Reread "
                  "'Step 1 — Project: make a query, keys and values'.",
        cause="You multiplied x by each weight matrix transposed, x Wᵀ, as for nn.Linear's (out, in) layout; these "
              "weights are already laid out (d_model, d_k).",
    ),
    Misconception(
        "fused-split-wrong-axis", (1,),
        "You cut x @ w_qkv along dim 1, which is the features only when there are no batch dims: cut the "
        "last dim (dim=-1), where W_Q | W_K | W_V sit side by side: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.chunk(3, dim=1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, k, v = qkv.chunk(3, dim=1)")]},
        principle="A fused projection holds W_Q, W_K and W_V side by side along the feature axis, the last one, so "
                  "q, k and v are three blocks of every token's features, whatever batch axes come in front. In "
                  "yours, a batch axis in front changes what you cut. Reread " + WALKTHROUGH + ".",
        cause="You cut the fused output along dim 1, which is the feature axis only when there is no batch axis; "
              "with one in front, dim 1 is the tokens.",
    ),
    Misconception(
        "fused-split-d-model", (1,),
        "You cut x @ w_qkv into pieces d_model wide, as the chapter's multi-head layer does; here each of "
        "W_Q, W_K, W_V has d = w_qkv.size(-1) // 3 columns: see " + WALKTHROUGH,
        ({"cut_fused": lambda self, qkv, d, d_model: list(qkv.split(d_model, dim=-1))},),
        {1: [("    q, k, v = qkv.split(d, dim=-1)  # three (..., L, d)\n    return q, k, v",
              "    return qkv.split(x.size(-1), dim=-1)")]},
        principle="The fused weight holds three projections of the same width side by side: q, k and v are each a "
                  "third of its columns, and that width is the fused matrix's, not the model's. In yours, the pieces "
                  "are the wrong width. Reread " + WALKTHROUGH + ".",
        cause="You cut the fused output into pieces d_model wide, as the chapter's multi-head layer does (where the "
              "two widths happen to be equal); here each projection's width is not d_model.",
    ),
    Misconception(
        "qkv-order-swapped", (1, 6),
        "Your q, k and v come out in the wrong order: the weights are [W_Q | W_K | W_V] side by side, so the "
        "first third of the columns makes q, the second k and the last v: see " + WALKTHROUGH,
        tuple(qkv_order(order) for order in ((0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))),
        {1: [("    q, k, v = qkv.split(d, dim=-1)", "    q, v, k = qkv.split(d, dim=-1)")],
         6: [("        q, k, v = self.qkv(x).split(D, dim=-1)", "        k, q, v = self.qkv(x).split(D, dim=-1)")]},
        principle="Query, key and value play three different roles (what a token looks for, the label it wears, the "
                  "content it gives), and the fused weights hold them in one fixed order: W_Q, then W_K, then W_V. "
                  "In yours, q, k and v play each other's roles. Reread " + WALKTHROUGH + ".",
        cause="You took q, k and v from the thirds of the fused output in another order than W_Q | W_K | W_V.",
    ),
)
