STUB = "exercise1_projection.py"

FUSED_OK = """
d = w_qkv.size(-1) // 3
q, k, v = (x @ w_qkv).split(d, dim=-1)
return q, k, v
"""
PROJECT_OK = """
return x @ w_q, x @ w_k, x @ w_v
"""

FILES = [
    dict(name="wrong_weight_transposed", kind="wrong",
         mistake="project multiplies by the transposed weights (x @ w.T, nn.Linear's (out, in) habit): wrong values for square weights, a shape error when d_model != d_k",
         ideal="project: the weights are given as (d_model, d_k), so Q = x @ w_q with no transpose; x @ w_q.T multiplies by W_Q transposed",
         expect=r"transpos|\.T\b|w_q\.t|x @ w_q\b|\(d_model, d_k\)|shape",
         reject=[r"dtype|device|in-?place|contiguous"],
         bodies=["""
return x @ w_q.T, x @ w_k.T, x @ w_v.T
""", FUSED_OK]),
    dict(name="wrong_split_by_dmodel", kind="wrong",
         mistake="fused_project cuts x @ w_qkv into chunks of d_model = x.size(-1) columns instead of w_qkv.size(-1) // 3, so it only works when d == d_model",
         ideal="fused_project: each of q, k, v is w_qkv.size(-1) // 3 wide, not d_model wide; split(d_model) cuts the fused output in the wrong places when d != d_model",
         expect=r"split|chunk|w_qkv\.size\(-1\)\s*//\s*3|3d|d_model|width|three equal",
         reject=[r"dtype|device|in-?place|transpos"],
         bodies=[PROJECT_OK, """
d = x.size(-1)
q, k, v = (x @ w_qkv).split(d, dim=-1)
return q, k, v
"""]),
    dict(name="wrong_interleaved_columns", kind="wrong",
         mistake="fused_project reshapes the fused output as (..., d, 3) and unbinds the last axis, so q, k, v take every third column (interleaved) instead of three contiguous blocks",
         ideal="fused_project: W_Q, W_K, W_V sit side by side (columns 0..d-1, d..2d-1, 2d..3d-1); viewing as (d, 3) takes interleaved columns; view as (3, d) or split(d, dim=-1)",
         expect=r"interleav|side by side|contiguous block|columns 0|\(3, d\)|split|order|block",
         reject=[r"dtype|device|in-?place|transpos"],
         bodies=[PROJECT_OK, """
d = w_qkv.size(-1) // 3
fused = x @ w_qkv
q, k, v = fused.unflatten(-1, (d, 3)).unbind(-1)
return q, k, v
"""]),
    dict(name="wrong_view_noncontiguous", kind="wrong",
         mistake="project flattens the leading dims with x.view(-1, d_model), which raises on a non-contiguous x (e.g. a transposed batch), though the docstring says any memory layout must work",
         ideal="project: x may be non-contiguous; .view(-1, d_model) fails on such input. Just use x @ w_q (matmul handles leading dims), or reshape",
         expect=r"contiguous|view|stride|memory layout|transpos(ed)? (batch|input)|reshape",
         reject=[r"wrong (values|numbers)|dtype|\bscale\b"],
         bodies=["""
lead = x.shape[:-1]
flat = x.view(-1, x.size(-1))
q = (flat @ w_q).view(*lead, w_q.size(-1))
k = (flat @ w_k).view(*lead, w_k.size(-1))
v = (flat @ w_v).view(*lead, w_v.size(-1))
return q, k, v
""", FUSED_OK]),
    dict(name="wrong_cast_float32", kind="wrong",
         mistake="project casts x and the weights to float32 (.float()) before multiplying, so float64/float16/bfloat16 inputs come back as float32",
         ideal="project: returns float32 whatever the input dtype; drop the .float() casts so q, k, v keep the inputs' dtype",
         expect=r"dtype|float32|\.float\(\)|float64|float16|bfloat16|precision|cast",
         reject=[r"transpos|in-?place|device|contiguous"],
         bodies=["""
xf = x.float()
return xf @ w_q.float(), xf @ w_k.float(), xf @ w_v.float()
""", FUSED_OK]),
    dict(name="wrong_data_no_grad", kind="wrong",
         mistake="fused_project multiplies x by w_qkv.data instead of w_qkv, so no gradient reaches w_qkv (values and x's gradient are right)",
         ideal="fused_project: .data cuts the weights out of autograd, so w_qkv gets no gradient; use w_qkv itself (one x @ w_qkv, then split)",
         expect=r"grad|autograd|\.data|detach|train",
         reject=[r"dtype|device|transpos|wrong value"],
         bodies=[PROJECT_OK, """
d = w_qkv.size(-1) // 3
q, k, v = (x @ w_qkv.data).split(d, dim=-1)
return q, k, v
"""]),
    dict(name="wrong_einsum_no_batch", kind="wrong",
         mistake="project uses torch.einsum('ld,dk->lk', ...), which only accepts an unbatched (L, d_model) x and raises with leading batch dims",
         ideal="project: leading batch dims are allowed in front of (L, d_model); the einsum 'ld,dk->lk' rejects them; use '...ld,dk->...lk' or x @ w_q",
         expect=r"batch|leading|einsum|\.\.\.|dims|3-?d|4-?d",
         reject=[r"dtype|device|transpos|in-?place"],
         bodies=["""
q = torch.einsum("ld,dk->lk", x, w_q)
k = torch.einsum("ld,dk->lk", x, w_k)
v = torch.einsum("ld,dk->lk", x, w_v)
return q, k, v
""", FUSED_OK]),
    dict(name="wrong_k_v_swapped", kind="wrong",
         mistake="fused_project unpacks the three chunks as q, v, k, i.e. takes keys from the last third (W_V) and values from the middle third (W_K)",
         ideal="fused_project: the layout is [W_Q | W_K | W_V], so the middle chunk is k and the last is v; your k and v are swapped",
         expect=r"swap|order|k and v|v and k|middle|W_K|W_V|\[W_Q \| W_K \| W_V\]",
         reject=[r"dtype|device|transpos|in-?place|batch"],
         bodies=[PROJECT_OK, """
d = w_qkv.size(-1) // 3
q, v, k = (x @ w_qkv).split(d, dim=-1)
return q, k, v
"""]),
    dict(name="honest_einsum_narrow", kind="honest",
         method="torch.einsum with an ellipsis for the batch dims; fused_project slices the one fused product with Tensor.narrow",
         bodies=["""
q = torch.einsum("...ld,dk->...lk", x, w_q)
k = torch.einsum("...ld,dk->...lk", x, w_k)
v = torch.einsum("...ld,dk->...lk", x, w_v)
return q, k, v
""", """
d = w_qkv.shape[-1] // 3
fused = torch.einsum("...ld,dk->...lk", x, w_qkv)
return fused.narrow(-1, 0, d), fused.narrow(-1, d, d), fused.narrow(-1, 2 * d, d)
"""]),
    dict(name="honest_tensordot_unflatten", kind="honest",
         method="torch.tensordot over x's last axis; fused_project views the fused product as (..., 3, d) and unbinds the 3",
         helpers='''
def _last_axis_product(x, w):
    """x (..., d_model) times w (d_model, n) -> (..., n), contracting x's last axis."""
    return torch.tensordot(x, w, dims=([x.dim() - 1], [0]))
''',
         bodies=["""
return tuple(_last_axis_product(x, w) for w in (w_q, w_k, w_v))
""", """
three_d = w_qkv.shape[-1]
fused = _last_axis_product(x, w_qkv)
q, k, v = fused.unflatten(-1, (3, three_d // 3)).unbind(-2)
return q, k, v
"""]),
]
