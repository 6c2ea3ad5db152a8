STUB = "exercise1_projection.py"
DEFAULT = [
    "return x @ w_q, x @ w_k, x @ w_v",
    "d = w_qkv.shape[-1] // 3\nq, k, v = (x @ w_qkv).split(d, dim=-1)\nreturn q, k, v",
]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))

add("wrong", "fused_interleaved_columns",
    "fused_project cuts the product with unflatten(-1, (d, 3)), so q, k, v take every third column instead of the three contiguous blocks [W_Q | W_K | W_V].",
    "Your fused_project reads the columns of x @ w_qkv interleaved (column 3j is q's j-th) but W_Q, W_K, W_V sit side by side as blocks; cut the last dim into three consecutive chunks of d (split(d, dim=-1) or unflatten(-1, (3, d))).",
    r"(?i)(interleav|every third|side by side|contiguous|block|split|chunk|unflatten|\(3, ?d\))",
    r"(?i)(transpos|dtype|device|in[- ]place|gradient)",
    [None, "d = w_qkv.shape[-1] // 3\nqkv = (x @ w_qkv).unflatten(-1, (d, 3))\nq, k, v = qkv.unbind(-1)\nreturn q, k, v"],
    fails=["fused_values"])
add("wrong", "linear_weight_layout",
    "project ports nn.Linear's (out, in) weight convention and computes x @ w.T, which is only even shaped right when d_k == d_model.",
    "You multiply by the transposed weights (x @ w_q.T, as with nn.Linear's (out, in) weights), but here W_Q is (d_model, d_k); use Q = x @ w_q without the transpose.",
    r"(?i)(transpos|\.T\b|\(d_model, ?d_k\)|nn\.Linear|layout|x ?@ ?w_q\b)",
    r"(?i)(dtype|device|in[- ]place|softmax|split)",
    ["return x @ w_q.T, x @ w_k.T, x @ w_v.T", None],
    fails=["project_values", "project_square_values"])
add("wrong", "fused_width_from_rows",
    "fused_project takes the head width d from w_qkv.shape[0] (d_model) instead of w_qkv.shape[1] // 3, so it only works when d == d_model.",
    "You size the three parts with w_qkv.shape[0], which is d_model, not d; split x @ w_qkv into parts of w_qkv.shape[-1] // 3.",
    r"(?i)(shape\[0\]|d_model|width|3 ?d|// ?3|size of (the|each) (part|chunk)|split size)",
    r"(?i)(transpos|dtype|device|in[- ]place|interleav)",
    [None, "d = w_qkv.shape[0]\nq, k, v = (x @ w_qkv).split(d, dim=-1)\nreturn q, k, v"],
    fails=["fused_values"])
add("wrong", "view_flatten_noncontiguous",
    "project flattens the batch with x.view(-1, d_model), which raises for a non-contiguous x (a transposed batch), although the docstring says x may be laid out in any order.",
    "x.view(-1, d_model) needs contiguous memory and fails on a transposed batch; let @ handle the leading dims (x @ w_q) or use reshape.",
    r"(?i)(contiguous|view|reshape|stride|laid out|memory layout|transpos)",
    r"(?i)(dtype|device|gradient|split|interleav)",
    ["lead = x.shape[:-1]\nflat = x.view(-1, x.shape[-1])\nq = (flat @ w_q).view(*lead, w_q.shape[1])\nk = (flat @ w_k).view(*lead, w_k.shape[1])\nv = (flat @ w_v).view(*lead, w_v.shape[1])\nreturn q, k, v", None],
    fails=["project_noncontig"])
add("wrong", "einsum_one_batch_dim",
    "project uses einsum('bld,dk->blk'), which hard-codes exactly one batch dim, so an unbatched (L, d_model) x or two leading dims fail.",
    "Your einsum subscripts 'bld' demand exactly one batch dim; use '...ld,dk->...lk' (or plain x @ w_q) so any number of leading dims works.",
    r"(?i)(batch dim|leading dim|einsum|\.\.\.|ellipsis|any number)",
    r"(?i)(dtype|device|gradient|transpos|in[- ]place)",
    ["q = torch.einsum('bld,dk->blk', x, w_q)\nk = torch.einsum('bld,dk->blk', x, w_k)\nv = torch.einsum('bld,dk->blk', x, w_v)\nreturn q, k, v", None],
    fails=["project_values", "project_2d"])
add("wrong", "float32_upcast",
    "project casts x and the weights to float32 with .float() 'for speed', so float64 inputs come back float32 (and float16 inputs come back float32 too).",
    "The .float() calls change the dtype: results must keep the inputs' dtype; drop the casts and multiply the tensors as given.",
    r"(?i)(dtype|float32|\.float\(\)|cast|precision|float64)",
    r"(?i)(transpos|shape|device|split|in[- ]place)",
    ["return x.float() @ w_q.float(), x.float() @ w_k.float(), x.float() @ w_v.float()", None],
    fails=["project_values", "dtypes"])
add("wrong", "data_attribute_no_grad",
    "fused_project multiplies by w_qkv.data (an old PyTorch idiom), so the forward is right but no gradient reaches w_qkv.",
    "Using w_qkv.data cuts w_qkv out of the autograd graph, so it gets no gradient; multiply by w_qkv itself.",
    r"(?i)(\.data|gradient|autograd|detach|graph)",
    r"(?i)(dtype|device|shape|transpos|interleav|split size)",
    [None, "w = w_qkv.data\nd = w.shape[-1] // 3\nq, k, v = (x @ w).split(d, dim=-1)\nreturn q, k, v"],
    fails=["fused_grad"])
add("wrong", "cpu_accumulator",
    "project allocates its outputs with torch.zeros(..., dtype=x.dtype) but no device=, then adds x @ w into them, so on a GPU (or meta) input it fails or lands on the CPU.",
    "torch.zeros(...) without device= is made on the CPU; there is no need for a buffer at all (return x @ w_q), or pass device=x.device.",
    r"(?i)(device|cpu|cuda|gpu|torch\.zeros)",
    r"(?i)(transpos|split|interleav|gradient)",
    ["outs = []\nfor w in (w_q, w_k, w_v):\n    acc = torch.zeros(*x.shape[:-1], w.shape[1], dtype=x.dtype)\n    acc = acc + x @ w\n    outs.append(acc)\nreturn tuple(outs)", None],
    fails=["device"])
add("honest", "tensordot_unflatten",
    "torch.tensordot over the model axis for each projection; fused_project unflattens the 3d columns into (3, d) and unbinds the three blocks.",
    "", r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)",
    ["q, k, v = (torch.tensordot(x, w, dims=([x.dim() - 1], [0])) for w in (w_q, w_k, w_v))\nreturn q, k, v",
     "q, k, v = torch.matmul(x, w_qkv).unflatten(-1, (3, w_qkv.size(-1) // 3)).unbind(-2)\nreturn q, k, v"])
add("honest", "einsum_ellipsis_narrow",
    "einsum with an ellipsis for any leading dims; fused_project narrows the fused weight into its three column blocks and applies project.",
    "", r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)",
    ["return tuple(torch.einsum('...ld,de->...le', x, w) for w in (w_q, w_k, w_v))",
     "d = w_qkv.size(1) // 3\nblocks = [w_qkv.narrow(1, i * d, d) for i in range(3)]\nreturn project(x, *blocks)"])
VARIANTS = V
