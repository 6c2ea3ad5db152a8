EX = 1
STUB = "exercise1_projection.py"
CORRECT = {
    "project": """
q = x @ w_q  # (..., L, d_k)
k = x @ w_k  # (..., L, d_k)
v = x @ w_v  # (..., L, d_v)
return q, k, v
""",
    "fused_project": """
d = w_qkv.size(-1) // 3
qkv = x @ w_qkv  # (..., L, 3d)
q, k, v = qkv.split(d, dim=-1)
return q, k, v
""",
}
VARIANTS = [
    dict(slug="split_size_three", kind="wrong",
         mistake="fused_project splits the fused output into chunks of size 3 (split(3)) instead of size d, so it only works when d == 3 (the napkin example)",
         ideal="fused_project calls split(3, dim=-1), which cuts chunks of size 3 rather than three equal parts of size d, so whenever d != 3 it yields the wrong number of pieces (or pieces of the wrong width) instead of q, k, v.",
         expect=[r"split|chunk|cut", r"size\s*3|3 (columns|wide)|d\s*!=\s*3|chunk size|size of each|three equal|equal parts"],
         reject=[r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose", r"softmax"],
         bodies={"fused_project": """
qkv = x @ w_qkv  # (..., L, 3d)
q, k, v = qkv.split(3, dim=-1)
return q, k, v
"""}),
    dict(slug="interleaved_columns", kind="wrong",
         mistake="fused_project reshapes the last dim as (d, 3) and unbinds the 3, taking every third column (interleaved) instead of the contiguous blocks [W_Q | W_K | W_V]",
         ideal="fused_project views the 3d columns as (d, 3) and takes every third column, so it reads the fused weight as interleaved q/k/v columns instead of the contiguous blocks W_Q = columns 0..d-1, W_K = d..2d-1, W_V = 2d..3d-1.",
         expect=[r"interleav|every third|strided|\(d, ?3\)|column (order|layout)|layout", r"block|contiguous|side by side|0\s*\.\.\s*d|columns"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"fused_project": """
d = w_qkv.size(-1) // 3
qkv = (x @ w_qkv).unflatten(-1, (d, 3))  # (..., L, d, 3)
q, k, v = qkv.unbind(-1)
return q, k, v
"""}),
    dict(slug="key_uses_wq", kind="wrong",
         mistake="project computes the keys with W_Q (copy-paste: k = x @ w_q), so keys equal queries",
         ideal="project computes k = x @ w_q instead of x @ w_k (a copy-paste slip), so the keys are the queries and w_k is never used.",
         expect=[r"w_?q", r"w_?k|key"],
         reject=[r"fused_project (is|was) wrong", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"project": """
q = x @ w_q
k = x @ w_q
v = x @ w_v
return q, k, v
"""}),
    dict(slug="float32_upcast", kind="wrong",
         mistake="project casts x and the weights to float32 (.float()) before the products, so float64 (and half) inputs come back as float32",
         ideal="project calls .float() on its inputs, so it returns float32 tensors for float64 or float16/bfloat16 inputs instead of keeping the inputs' dtype.",
         expect=[r"float32|\.float\(\)|dtype|precision"],
         reject=[r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"wrong shape|shape (is |was )?wrong|shape mismatch"],
         bodies={"project": """
x32 = x.float()
return x32 @ w_q.float(), x32 @ w_k.float(), x32 @ w_v.float()
"""}),
    dict(slug="flattens_batch", kind="wrong",
         mistake="project flattens all leading dims into rows (reshape(-1, d_model)) and never restores them, so batched x gives (B*L, d) instead of (B, L, d)",
         ideal="project reshapes x to (-1, d_model) and returns 2-D results without restoring the leading batch dims, so a batched input of shape (B, L, d_model) gives (B*L, d_k) instead of (B, L, d_k).",
         expect=[r"batch|leading", r"shape|reshape|flatten|restor|\(B\s*\*\s*L"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"project": """
x2 = x.reshape(-1, x.size(-1))  # rows = tokens
return x2 @ w_q, x2 @ w_k, x2 @ w_v
"""}),
    dict(slug="unsqueeze_inplace", kind="wrong",
         mistake="project adds a batch dim to an unbatched x with the in-place x.unsqueeze_(0), so the caller's x changes shape to (1, L, d_model)",
         ideal="project uses the in-place x.unsqueeze_(0) on a 2-D input, which changes the caller's tensor x to shape (1, L, d_model) although inputs must be left unchanged.",
         expect=[r"in[- ]?place|unsqueeze_", r"input|caller|\bx\b|shape"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"project": """
squeeze = x.dim() == 2
if squeeze:
    x.unsqueeze_(0)  # treat an unbatched input as a batch of one
q, k, v = x @ w_q, x @ w_k, x @ w_v
if squeeze:
    q, k, v = q.squeeze(0), k.squeeze(0), v.squeeze(0)
return q, k, v
"""}),
    dict(slug="data_no_grad", kind="wrong",
         mistake="fused_project multiplies by w_qkv.data, so no gradient reaches the fused weight (it cannot train)",
         ideal="fused_project uses w_qkv.data, which cuts it out of the autograd graph, so the fused weight gets no gradient and cannot be trained.",
         expect=[r"\.data|detach|autograd|graph", r"grad"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong shape|shape (is |was )?wrong|shape mismatch"],
         bodies={"fused_project": """
d = w_qkv.size(-1) // 3
qkv = x @ w_qkv.data  # the raw weight matrix
q, k, v = qkv.split(d, dim=-1)
return q, k, v
"""}),
    dict(slug="zero_bias_cpu", kind="wrong",
         mistake="fused_project mimics nn.Linear by adding a zero bias made with torch.zeros(3d, dtype=x.dtype) but no device=, so GPU inputs fail",
         ideal="fused_project adds a zero bias created with torch.zeros(...) without device=x.device, so that tensor is on the CPU and the addition fails when the inputs are on a GPU (or any device other than the CPU).",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"fused_project": """
d = w_qkv.size(-1) // 3
bias = torch.zeros(3 * d, dtype=x.dtype)  # no bias, as nn.Linear(bias=False) would have
qkv = x @ w_qkv + bias
q, k, v = qkv.split(d, dim=-1)
return q, k, v
"""}),
    dict(slug="d_from_dmodel", kind="wrong",
         mistake="fused_project takes the per-projection width from x (d = d_model) instead of w_qkv.size(-1) // 3, so it is wrong whenever d != d_model",
         ideal="fused_project sets d = x.size(-1) (d_model) instead of w_qkv.size(-1) // 3, so it only works when the projection width equals d_model and breaks for d != d_model.",
         expect=[r"d_model|x\.size\(-1\)|x\.shape", r"w_qkv|3d|// ?3|width|d\s*!=\s*d_model"],
         reject=[r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"fused_project": """
d = x.size(-1)  # width of each projection
qkv = x @ w_qkv
q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:3 * d]
return q, k, v
"""}),
    dict(slug="einsum_linear", kind="honest",
         method="einsum for the three products; fused_project slices the fused weight into W_Q, W_K, W_V and reuses project",
         ideal="Correct: einsum computes X W for every batch dim and the fused weight is sliced by column blocks, so both functions match the chapter with gradients, dtype and device preserved.",
         bodies={"project": """
q = torch.einsum("...ld,dk->...lk", x, w_q)
k = torch.einsum("...ld,dk->...lk", x, w_k)
v = torch.einsum("...ld,dv->...lv", x, w_v)
return q, k, v
""", "fused_project": """
d = w_qkv.shape[1] // 3
w_q, w_k, w_v = w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:]
return project(x, w_q, w_k, w_v)
"""}),
    dict(slug="functional_linear", kind="honest",
         method="port of nn.Linear's convention: F.linear(x, W.T); fused_project uses chunk(3) on one F.linear",
         ideal="Correct: torch.nn.functional.linear with the transposed weight is exactly X W, and chunk(3, dim=-1) cuts the fused product into the three equal column blocks.",
         bodies={"project": """
import torch.nn.functional as F
return F.linear(x, w_q.t()), F.linear(x, w_k.t()), F.linear(x, w_v.t())
""", "fused_project": """
import torch.nn.functional as F
q, k, v = F.linear(x, w_qkv.t()).chunk(3, dim=-1)
return q, k, v
"""}),
]
