STUB = "exercise2_scoring.py"
DEFAULT = ["return q @ k.transpose(-2, -1)"]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "dot_T_attribute",
    "attention_scores uses k.T, which reverses ALL dims of a batched k instead of swapping the last two, so it is only right for 2-D inputs.",
    "Tensor.T reverses every dimension, so with batch dims k.T is not Kᵀ per batch; swap only the last two with k.transpose(-2, -1) (or k.mT).",
    r"(?i)(\.T\b|revers|all (the )?dim|transpose\(-2, ?-1\)|\.mT|last two)",
    r"(?i)(dtype|device|in[- ]place|scale|sqrt)",
    ["return q @ k.T"], fails=["values_batched", "values_4d"])
add("wrong", "keys_times_queries",
    "attention_scores computes k @ q.transpose(-2, -1), giving the (L_k, L_q) transpose of the scores: row i is key i, not query i.",
    "Your product is K Qᵀ, which is Sᵀ (rows are keys, shape (L_k, L_q)); compute q @ k.transpose(-2, -1) so row i holds query i's scores.",
    r"(?i)(K ?Q|transposed|\(L_k, ?L_q\)|rows? (are|is) (the )?keys|order of the (product|operands)|q ?@ ?k)",
    r"(?i)(dtype|device|in[- ]place|scale|sqrt|batch dim)",
    ["return k @ q.transpose(-2, -1)"], fails=["values_batched", "values_square"])
add("wrong", "einsum_fixed_batch",
    "attention_scores uses einsum('bqd,bkd->bqk'), so it needs exactly one leading batch dim and fails for (L, d) or (B, H, L, d) inputs.",
    "The einsum subscripts fix exactly one batch dim; write '...qd,...kd->...qk' (or q @ k.transpose(-2, -1)) so any leading dims work.",
    r"(?i)(einsum|batch dim|leading dim|\.\.\.|ellipsis|head)",
    r"(?i)(dtype|device|in[- ]place|scale|sqrt)",
    ["return torch.einsum('bqd,bkd->bqk', q, k)"], fails=["values_2d", "values_4d"])
add("wrong", "inplace_transpose",
    "attention_scores calls k.transpose_(-2, -1), which transposes the caller's k in place (a second call then fails or gives nonsense).",
    "transpose_ (with the underscore) changes k itself; use the out-of-place k.transpose(-2, -1) so the input is left unchanged.",
    r"(?i)(in[- ]place|transpose_|underscore|input.*(chang|modif)|(chang|modif).*input)",
    r"(?i)(dtype|device|scale|sqrt|einsum)",
    ["k.transpose_(-2, -1)\nreturn q @ k"], fails=["inputs_unchanged"])
add("wrong", "float32_matmul",
    "attention_scores casts q and k to float32 before the product, so float64 (and float16/bfloat16) inputs come back as float32.",
    "The .float() casts change the result's dtype (and lose float64 precision); multiply q and k in their own dtype.",
    r"(?i)(dtype|float32|\.float\(\)|cast|precision)",
    r"(?i)(transpos|device|in[- ]place|scale|sqrt|batch)",
    ["return q.float() @ k.float().transpose(-2, -1)"], fails=["values_batched", "dtypes"])
add("wrong", "broadcast_axes_swapped",
    "attention_scores broadcasts q.unsqueeze(-3) * k.unsqueeze(-2) and sums over d, which pairs query j with key i: the result is the (L_k, L_q) transpose.",
    "With q.unsqueeze(-3) and k.unsqueeze(-2) the broadcast axes are swapped and you get Sᵀ; unsqueeze q at -2 and k at -3 (or simply q @ k.transpose(-2, -1)).",
    r"(?i)(unsqueeze|broadcast|transposed|swapp|\(L_k, ?L_q\)|axes|axis)",
    r"(?i)(dtype|device|in[- ]place|scale|sqrt)",
    ["return (q.unsqueeze(-3) * k.unsqueeze(-2)).sum(-1)"], fails=["values_batched", "values_square"])
add("wrong", "custom_backward_no_transpose",
    "attention_scores is a custom autograd.Function whose forward is right but whose backward returns grad @ q for k's gradient instead of gradᵀ @ q.",
    "The forward is right but your hand-written backward gives k the gradient grad @ q; dL/dK is grad.transpose(-2, -1) @ q (or drop the custom Function and let autograd differentiate q @ k.transpose(-2, -1)).",
    r"(?i)(backward|gradient|autograd|grad(ient)? (of|for|w\.r\.t\.) k)",
    r"(?i)(dtype|device|in[- ]place|scale|sqrt|forward is wrong)",
    ["return _Scores.apply(q, k)"], fails=["grad"],
    helpers='''
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
''')
add("wrong", "already_scaled",
    "attention_scores divides by √d_k already, but this step must return the raw scores Q Kᵀ (scaling is exercise 3).",
    "You scale the scores here, but attention_scores is the raw Q Kᵀ; remove the division by √d_k (it belongs to exercise 3).",
    r"(?i)(scal|sqrt|√|raw)",
    r"(?i)(transpos|dtype|device|in[- ]place|batch dim)",
    ["return q @ k.transpose(-2, -1) / q.size(-1) ** 0.5"], fails=["values_batched"])
add("honest", "einsum_ellipsis",
    "einsum '...id,...jd->...ij', which contracts the feature axis and keeps any leading dims.",
    "", OKX, BADX, ["return torch.einsum('...id,...jd->...ij', q, k)"])
add("honest", "broadcast_multiply_sum",
    "broadcast q (..., L_q, 1, d) against k (..., 1, L_k, d), multiply and sum over the feature axis.",
    "", OKX, BADX, ["return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)"])
VARIANTS = V
