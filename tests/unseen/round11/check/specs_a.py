"""Exercises 1-5: base (correct) bodies and the corpus files."""
S = {}

# ---------------------------------------------------------------- exercise 1
S[1] = dict(base=[
"""
return x @ w_q, x @ w_k, x @ w_v
""",
"""
d = w_qkv.shape[-1] // 3
q, k, v = (x @ w_qkv).split(d, dim=-1)
return q, k, v
"""], files=[
dict(name="wrong_linear_convention", kind="wrong",
     first="project calls F.linear(x, w_q) (nn.Linear's (out, in) weight convention), so it computes X W^T instead of X W",
     ideal="project multiplies by the transposed weights (F.linear computes x @ w.T); W_Q is (d_model, d_k) so it must be x @ w_q: wrong values when square, a shape error otherwise",
     expect=r"transpos|W\s*\^?\s*T\b|\.T\b|F\.linear|linear\(|\(out,\s*in\)|convention|x\s*@\s*w|shape mismatch|cannot be multiplied",
     rejects=[r"\bsplit\b|chunk", r"sqrt|scal(e|ing)\b"],
     extra="import torch.nn.functional as F",
     bodies={0: """
return F.linear(x, w_q), F.linear(x, w_k), F.linear(x, w_v)
"""}, fails=["project_basic", "project_square"]),
dict(name="wrong_interleaved_split", kind="wrong",
     first="fused_project reshapes the fused output to (..., d, 3) and unbinds the last axis, i.e. treats the columns as interleaved q,k,v,q,k,v instead of [W_Q | W_K | W_V] blocks",
     ideal="fused_project cuts the fused columns in the wrong layout (interleaved every 3rd column) instead of three contiguous blocks of d columns; q, k, v come out as mixtures of all three projections",
     expect=r"interleav|every (third|3rd)|column|block|contiguous|layout|split|order|\[\s*W_?Q\s*\|",
     rejects=[r"transpos(e|ed) weight|F\.linear", r"sqrt|scal(e|ing)\b", r"dtype|device"],
     bodies={1: """
out = x @ w_qkv
q, k, v = out.unflatten(-1, (-1, 3)).unbind(-1)
return q, k, v
"""}, fails=["fused_basic", "fused_square"]),
dict(name="wrong_float32_compute", kind="wrong",
     first="project casts x and the weights to float32 'for stability' and never casts back, so float64/float16/bfloat16 inputs come back as float32",
     ideal="project returns float32 whatever the inputs' dtype (x.float() @ w.float()); the docstring requires the inputs' dtype (float64 loses precision, half/bfloat16 change dtype)",
     expect=r"dtype|float32|\.float\(\)|float64|float16|bfloat16|half|precision|cast",
     rejects=[r"transpos|split|chunk|order of", r"sqrt|scal(e|ing)\b"],
     bodies={0: """
xf = x.float()
return xf @ w_q.float(), xf @ w_k.float(), xf @ w_v.float()
"""}, fails=["project_dtypes"]),
dict(name="wrong_data_weights", kind="wrong",
     first="fused_project multiplies by w_qkv.data, so no gradient reaches the fused weight (autograd never sees it)",
     ideal="fused_project uses w_qkv.data, which detaches the weight from autograd: forward is right but W_QKV gets no gradient (None/zero), so it cannot train",
     expect=r"\.data\b|detach|gradient|grad|autograd|train",
     rejects=[r"interleav|layout|transpos", r"dtype|float32"],
     bodies={1: """
d = w_qkv.shape[-1] // 3
q, k, v = (x @ w_qkv.data).split(d, dim=-1)
return q, k, v
"""}, fails=["fused_grad"]),
dict(name="wrong_view_flatten", kind="wrong",
     first="fused_project flattens the batch dims with x.view(-1, d_model) (like nn.Linear does internally), which raises for a non-contiguous x (a transposed batch)",
     ideal="fused_project calls .view on x, which fails when x is not contiguous (e.g. a batch the caller transposed); use reshape or just x @ w_qkv which handles any layout",
     expect=r"\bview\b|contiguous|stride|layout|transpos(ed)? (batch|input)|memory|reshape",
     rejects=[r"interleav|order of (q|the)", r"dtype|float32", r"sqrt|scal(e|ing)\b"],
     bodies={1: """
d = w_qkv.shape[-1] // 3
flat = x.view(-1, x.shape[-1]) @ w_qkv
out = flat.view(*x.shape[:-1], 3 * d)
q, k, v = out.split(d, dim=-1)
return q, k, v
"""}, fails=["fused_noncontig"]),
dict(name="wrong_mm_2d_only", kind="wrong",
     first="project uses torch.mm (NumPy np.dot habit), which only takes 2-D matrices, so any leading batch dim raises",
     ideal="project uses torch.mm, which accepts only 2-D tensors; with batch dims (B, L, d_model) it raises; `@`/matmul broadcasts the leading dims",
     expect=r"torch\.mm|\bmm\b|2-?d|two-dimensional|batch|leading dim|matmul|@",
     rejects=[r"transpos(e|ed) weight|F\.linear", r"dtype|float32", r"sqrt|scal(e|ing)\b"],
     bodies={0: """
return torch.mm(x, w_q), torch.mm(x, w_k), torch.mm(x, w_v)
"""}, fails=["project_batch"]),
dict(name="wrong_split_by_dmodel", kind="wrong",
     first="fused_project splits the fused output into chunks of x.shape[-1] (d_model, as in the chapter's MHA) instead of d = w_qkv.shape[-1] // 3; breaks whenever d != d_model",
     ideal="fused_project uses d_model (x's width) as the split size; the chapter's MHA has d = d_model, but here d = w_qkv.shape[-1]//3 can differ, giving too many/too few chunks (error) when d != d_model",
     expect=r"split|chunk|d_?model|w_qkv\.shape|3\s*d|size of each|width|too many|unpack|not enough",
     rejects=[r"interleav|transpos(e|ed) weight", r"dtype|float32", r"sqrt|scal(e|ing)\b"],
     bodies={1: """
q, k, v = (x @ w_qkv).split(x.shape[-1], dim=-1)
return q, k, v
"""}, fails=["fused_basic"]),
dict(name="wrong_prescaled_query", kind="wrong",
     first="project multiplies the queries by d_k ** -0.5 (BART/T5-style pre-scaling ported from Hugging Face), so q is not X W_Q",
     ideal="project scales q by 1/sqrt(d_k); scaling belongs to exercise 3 (Q K^T / sqrt(d_k)), the projection must return exactly X W_Q, so q is too small by sqrt(d_k)",
     expect=r"scal|sqrt|d_?k\s*\*\*\s*-?0?\.5|1\s*/\s*√|too small|factor",
     rejects=[r"transpos|split|chunk|interleav", r"dtype|float32|\.data|detach"],
     bodies={0: """
q = (x @ w_q) * (w_q.shape[-1] ** -0.5)
return q, x @ w_k, x @ w_v
"""}, fails=["project_basic"]),
dict(name="honest_einsum_unflatten", kind="honest",
     first="einsum '...ld,de->...le' for the three projections; fused via one torch.tensordot, then unflatten(-1, (3, d)).unbind(-2)",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
q = torch.einsum("...ld,de->...le", x, w_q)
k = torch.einsum("...ld,de->...le", x, w_k)
v = torch.einsum("...ld,de->...le", x, w_v)
return q, k, v
""", """
d = w_qkv.shape[-1] // 3
qkv = torch.tensordot(x, w_qkv, dims=1)          # (..., L, 3d), one product
q, k, v = qkv.unflatten(-1, (3, d)).unbind(-2)   # column c*d + j -> [c, j]
return q, k, v
"""]),
dict(name="honest_linear_port", kind="honest",
     first="ported from nn.Linear: F.linear(x, w.t()) (weights stored (in, out) so transposed for F.linear); fused cut with Tensor.narrow",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     extra="import torch.nn.functional as F",
     bodies=["""
# F.linear(x, W) computes x @ W.T; our weights are (d_model, out), so hand it W.T
return F.linear(x, w_q.t()), F.linear(x, w_k.t()), F.linear(x, w_v.t())
""", """
d = w_qkv.shape[-1] // 3
qkv = F.linear(x, w_qkv.t())
return qkv.narrow(-1, 0, d), qkv.narrow(-1, d, d), qkv.narrow(-1, 2 * d, d)
"""]),
])

# ---------------------------------------------------------------- exercise 2
S[2] = dict(base=["""
return q @ k.transpose(-2, -1)
"""], files=[
dict(name="wrong_transpose_dims_0_1", kind="wrong",
     first="attention_scores uses k.transpose(0, 1), which is K^T only for 2-D k; with batch/head dims it swaps the batch axis and raises (or mixes batches)",
     ideal="transpose(0, 1) swaps the first two axes, not the last two: right for a 2-D k, wrong (shape error) once batch or head dims are in front; use transpose(-2, -1)",
     expect=r"transpose\s*\(\s*-2|negative (dim|ax|ind)|last two|transpose\s*\(\s*0|batch|leading|head dim|\b2-?d\b",
     rejects=[r"sqrt|scal(e|ing)\b", r"dtype|float32|device"],
     bodies={0: """
return q @ k.transpose(0, 1)
"""}, fails=["scores_batch3", "scores_batch4"]),
dict(name="wrong_keys_times_queries", kind="wrong",
     first="attention_scores computes K Q^T (k @ q.transpose(-2, -1)), the transpose of S: shape (L_k, L_q) and S[i, j] = k_i . q_j",
     ideal="the operands are swapped: K Q^T is S transposed, rows are keys not queries; with L_q != L_k the shape is (L_k, L_q), with L_q == L_k the values are silently transposed",
     expect=r"swap|transpos|revers|k\s*@\s*q|K\s*Q\s*\^?T|rows? (are|is) (the )?keys|\(L_?k,\s*L_?q\)|order",
     rejects=[r"sqrt|scal(e|ing)\b", r"dtype|float32|device", r"detach|numpy"],
     bodies={0: """
return k @ q.transpose(-2, -1)
"""}, fails=["scores_basic", "scores_square"]),
dict(name="wrong_scaled_too_early", kind="wrong",
     first="attention_scores already divides by sqrt(d_k) (exercise 3's step), but the docstring asks for raw, unscaled scores",
     ideal="the raw scores must not be scaled yet; dividing by sqrt(d_k) here makes every score too small by sqrt(d_k) (and scales twice once exercise 3 adds it)",
     expect=r"scal|sqrt|√|d_?k|raw|unscaled|too small|factor",
     rejects=[r"swapp?(ed)? (q and k|the operands|arguments)|K\s*Q\s*\^?T|k\s*@\s*q|transpos(e|ed) (result|output)", r"dtype|float32|device"],
     extra="import math",
     bodies={0: """
return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
"""}, fails=["scores_basic"]),
dict(name="wrong_transpose_in_place", kind="wrong",
     first="attention_scores calls k.transpose_(-2, -1) to avoid a copy: the scores are right but the caller's k is left transposed (its shape changes), and on a leaf that requires grad it raises",
     ideal="transpose_ is in-place: it changes the input k (shape becomes (..., d_k, L_k)) instead of leaving it unchanged, and fails on a tensor that requires grad; use k.transpose(-2, -1)",
     expect=r"in-?place|transpose_|modif|mutat|chang(es|ed|ing) (the )?(input|k\b)|unchanged|leaf",
     rejects=[r"sqrt|scal(e|ing)\b", r"swap(ped)? (q|the operands)|K\s*Q"],
     bodies={0: """
k.transpose_(-2, -1)   # no copy needed
return q @ k
"""}, fails=["scores_unchanged", "scores_grad"]),
dict(name="wrong_numpy_roundtrip", kind="wrong",
     first="attention_scores detours through NumPy (q.detach().numpy() @ ...swapaxes), then torch.from_numpy: values right, but the result has no autograd history (and bfloat16/GPU inputs fail)",
     ideal="going through NumPy (detach().numpy()) cuts the autograd graph: the scores carry no gradient to q and k, so nothing trains (bfloat16 and non-CPU tensors also fail)",
     expect=r"numpy|detach|gradient|grad|autograd|graph|from_numpy|train",
     rejects=[r"sqrt|scal(e|ing)\b", r"swap(ped)? (q|the operands)|K\s*Q"],
     extra="import numpy as np",
     bodies={0: """
s = np.matmul(q.detach().cpu().numpy(), np.swapaxes(k.detach().cpu().numpy(), -1, -2))
return torch.from_numpy(s).to(q.device)
"""}, fails=["scores_grad", "scores_dtypes"]),
dict(name="wrong_cosine_similarity", kind="wrong",
     first="attention_scores L2-normalises q and k first (cosine similarity, as in Swin-v2 / cosine attention), so S is not the raw dot product",
     ideal="normalising q and k turns the dot product into a cosine similarity in [-1, 1]; the chapter's score is the plain dot product q_i . k_j, magnitudes included",
     expect=r"normali[sz]|cosine|norm\b|unit length|magnitude|\[-1,\s*1\]|F\.normalize",
     rejects=[r"swapp?(ed)? (q and k|the operands|arguments)|K\s*Q\s*\^?T|k\s*@\s*q|transpos(e|ed) (result|output)", r"dtype|float32|device"],
     extra="import torch.nn.functional as F",
     bodies={0: """
qn = F.normalize(q, dim=-1)
kn = F.normalize(k, dim=-1)
return qn @ kn.transpose(-2, -1)
"""}, fails=["scores_basic"]),
dict(name="wrong_row_max_subtracted", kind="wrong",
     first="attention_scores subtracts each row's max 'for numerical stability' (a softmax trick applied too early): softmax would not change, but S is no longer Q K^T",
     ideal="subtracting the row maximum belongs inside softmax; the scores themselves must be exactly q_i . k_j, so every row is shifted (its max becomes 0)",
     expect=r"max|subtract|shift|stabil|offset|row",
     rejects=[r"swapp?(ed)? (q and k|the operands|arguments)|K\s*Q\s*\^?T|k\s*@\s*q|transpos(e|ed) (result|output)", r"dtype|float32|device", r"sqrt|√"],
     bodies={0: """
s = q @ k.transpose(-2, -1)
return s - s.amax(dim=-1, keepdim=True)   # keep exp() safe later
"""}, fails=["scores_basic"]),
dict(name="wrong_buffer_without_device", kind="wrong",
     first="attention_scores fills a torch.empty(...) buffer created without device= (and loops over keys): fine on the CPU, but for GPU inputs the result lands on / mixes with the CPU and fails",
     ideal="the output buffer is made with torch.empty(..., dtype=q.dtype) but no device=q.device, so it is always on the CPU: any GPU (non-CPU) input fails or comes back on the wrong device",
     expect=r"device|cuda|gpu|\bcpu\b|torch\.empty|buffer|allocat",
     rejects=[r"sqrt|scal(e|ing)\b", r"swapp?(ed)? (q and k|the operands|arguments)|K\s*Q\s*\^?T|k\s*@\s*q|transpos(e|ed) (result|output)"],
     bodies={0: """
L_k = k.shape[-2]
s = torch.empty(*q.shape[:-1], L_k, dtype=q.dtype)
for j in range(L_k):
    s[..., j] = (q * k[..., j:j + 1, :]).sum(-1)
return s
"""}, fails=["scores_meta"]),
dict(name="honest_einsum", kind="honest",
     first="a single torch.einsum('...qd,...kd->...qk', q, k)", ideal="full marks",
     expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
return torch.einsum("...qd,...kd->...qk", q, k)
"""]),
dict(name="honest_broadcast_sum", kind="honest",
     first="broadcast multiply then sum: (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(-1), the dot products written out elementwise",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
# (..., L_q, 1, d) * (..., 1, L_k, d) -> (..., L_q, L_k, d), summed over d: S[i, j] = q_i . k_j
return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)
"""]),
])

# ---------------------------------------------------------------- exercise 3
S[3] = dict(base=["""
return scores / math.sqrt(d_k)
""", """
return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
"""], files=[
dict(name="wrong_power_precedence", kind="wrong",
     first="scale_scores writes the square root as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2, so it divides by d_k/2 (right only at d_k = 4)",
     ideal="operator precedence: d_k ** 1/2 is d_k/2, not sqrt(d_k); scores are divided by d_k/2 instead of sqrt(d_k) (coincides at d_k = 4 only); use math.sqrt(d_k) or d_k ** 0.5",
     expect=r"precedence|\*\*\s*1\s*/\s*2|d_?k\s*/\s*2|half|parenthes|\*\*\s*0?\.5|sqrt|√|square root",
     rejects=[r"in-?place|transpos|dtype|device"],
     bodies={0: """
scale = d_k ** 1/2
return scores / scale
"""}, fails=["scale_values"]),
dict(name="wrong_integer_sqrt", kind="wrong",
     first="scale_scores divides by math.isqrt(d_k), the integer square root: right for perfect squares (4, 16, 64) but wrong for d_k = 2, 3, 8, 32, ...",
     ideal="math.isqrt rounds the root down to an integer, so for non-square d_k (e.g. 8 -> 2 instead of 2.83) the scores are scaled wrongly; use math.sqrt",
     expect=r"isqrt|integer|round|floor|perfect square|non-?square|truncat|math\.sqrt",
     rejects=[r"in-?place|transpos|dtype|device", r"precedence"],
     bodies={0: """
return scores / math.isqrt(d_k)
"""}, fails=["scale_values"]),
dict(name="wrong_dk_from_key_length", kind="wrong",
     first="scaled_scores takes d_k = k.size(-2), the number of keys L_k, instead of the width q.size(-1); right only when L_k == d_k",
     ideal="d_k is read from the wrong axis (k.size(-2) = L_k, the number of keys); it must be the query/key width q.size(-1); shows whenever L_k != d_k",
     expect=r"size\(\s*-1\s*\)|shape\[\s*-1\s*\]|wrong (axis|dim)|L_?k|number of keys|width|last dim",
     rejects=[r"in-?place|dtype|device", r"precedence|isqrt"],
     bodies={1: """
d_k = k.size(-2)
return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
"""}, fails=["scaled_basic"]),
dict(name="wrong_inplace_divide", kind="wrong",
     first="scale_scores divides in place (scores /= sqrt(d_k)) and returns the same tensor: the caller's scores change, no new tensor is returned, and a leaf that requires grad raises",
     ideal="`scores /= ...` modifies the input in place and returns it (not a new tensor), against the docstring; a leaf requiring grad raises; use scores / math.sqrt(d_k)",
     expect=r"in-?place|/=|modif|mutat|chang(es|ed|ing) (the )?(input|scores|caller)|new tensor|same tensor|alias|unchanged|leaf",
     rejects=[r"precedence|isqrt|d_?k\s*/\s*2", r"dtype|device"],
     bodies={0: """
scores /= math.sqrt(d_k)
return scores
"""}, fails=["scale_new_tensor", "scale_unchanged", "scale_grad"]),
dict(name="wrong_scale_via_data", kind="wrong",
     first="scaled_scores divides s.data by sqrt(d_k) after the product: forward values right, but autograd never sees the division, so gradients to q and k are sqrt(d_k) times too large",
     ideal="the scaling is done through .data, invisible to autograd: outputs are right but the gradients w.r.t. q and k miss the 1/sqrt(d_k) factor (too large by sqrt(d_k))",
     expect=r"\.data\b|autograd|gradient|grad|backward|detach|invisible",
     rejects=[r"precedence|isqrt", r"dtype|device"],
     bodies={1: """
s = q @ k.transpose(-2, -1)
s.data /= math.sqrt(q.size(-1))
return s
"""}, fails=["scaled_grad"]),
dict(name="wrong_both_scaled", kind="wrong",
     first="scaled_scores multiplies BOTH q and k by 1/sqrt(d_k) before the product, so the scores are divided by d_k instead of sqrt(d_k)",
     ideal="scaling q and k each by 1/sqrt(d_k) divides the product by d_k; to split the scale between them each needs d_k ** -0.25 (or scale only one side)",
     expect=r"both|twice|double|d_?k\b(?!\s*\*\*\s*0?\.5)|\*\*\s*-?0?\.25|fourth root|scal|sqrt",
     rejects=[r"in-?place|dtype|device", r"precedence|isqrt"],
     bodies={1: """
scale = 1.0 / math.sqrt(q.size(-1))
return (q * scale) @ (k * scale).transpose(-2, -1)
"""}, fails=["scaled_basic"]),
dict(name="wrong_dk_from_dim1", kind="wrong",
     first="scaled_scores takes d_k = q.shape[1]: the width for a 2-D (L, d_k) q, but the sequence length once a batch dim is in front",
     ideal="q.shape[1] is the last dim only for 2-D inputs; with batch/head dims it picks L_q (or the heads), so the scale is wrong; use q.size(-1)",
     expect=r"shape\s*\[\s*1\s*\]|size\(\s*-1\s*\)|shape\[\s*-1\s*\]|batch|leading|wrong (axis|dim)|negative",
     rejects=[r"in-?place|dtype|device", r"precedence|isqrt"],
     bodies={1: """
d_k = q.shape[1]
return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
"""}, fails=["scaled_batch"]),
dict(name="wrong_shortcut_dk1", kind="wrong",
     first="scale_scores returns its input unchanged when d_k == 1 (sqrt(1) = 1, 'nothing to do'), so for d_k = 1 it hands back the caller's own tensor instead of a new one",
     ideal="the d_k == 1 shortcut returns `scores` itself: values are right but it is the same tensor (aliasing the input), and the docstring asks for a new tensor; later in-place edits would change the caller's scores",
     expect=r"new tensor|same (tensor|object)|alias|identity|d_?k\s*==\s*1|shortcut|early return|returns? (the )?(input|scores) itself",
     rejects=[r"precedence|isqrt|d_?k\s*/\s*2", r"dtype|device", r"gradient"],
     bodies={0: """
if d_k == 1:
    return scores   # sqrt(1) == 1: nothing to do
return scores / math.sqrt(d_k)
"""}, fails=["scale_new_tensor"]),
dict(name="honest_rsqrt_einsum", kind="honest",
     first="scale by multiplying with d_k ** -0.5; scaled_scores pre-scales q and uses torch.einsum", ideal="full marks",
     expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
return scores * (d_k ** -0.5)
""", """
d_k = q.shape[-1]
return torch.einsum("...id,...jd->...ij", q * d_k ** -0.5, k)
"""]),
dict(name="honest_split_quarter_power", kind="honest",
     first="torch.div for scale_scores; scaled_scores splits the scale symmetrically, q and k each times d_k ** -0.25 (as some diffusion codebases do), then matmul with k.mT",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
return torch.div(scores, math.sqrt(d_k))
""", """
c = q.size(-1) ** -0.25           # (q c) . (k c) = q . k / sqrt(d_k)
return torch.matmul(q * c, (k * c).mT)
"""]),
])

# ---------------------------------------------------------------- exercise 4
S[4] = dict(base=["""
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
""", """
return scores.masked_fill(~mask, float("-inf"))
""", """
j = torch.arange(L, device=lengths.device)
return (j[None, :] < lengths[:, None])[:, None, :]
"""], files=[
dict(name="wrong_triu", kind="wrong",
     first="causal_mask uses torch.triu instead of torch.tril: True on and ABOVE the diagonal, so every query sees the future and not the past",
     ideal="triu keeps the upper triangle: query i may read keys i..L-1 (the future) instead of 0..i; the mask is the transpose of the causal one (right only for L = 1)",
     expect=r"triu|tril|upper|lower|transpos|future|above the diagonal|wrong triangle",
     rejects=[r"device|dtype", r"off-?by-?one|diagonal\s*=\s*-1"],
     bodies={0: """
return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))
"""}, fails=["causal_values"]),
dict(name="wrong_strict_diagonal", kind="wrong",
     first="causal_mask uses tril(..., diagonal=-1): a token may not attend to itself, and row 0 is all False (a fully masked row: NaN weights in a plain softmax)",
     ideal="the diagonal is excluded (diagonal=-1): query i sees keys 0..i-1 only, so row 0 sees nothing; the chapter's mask includes the diagonal (token i reads itself)",
     expect=r"diagonal|itself|self|off-?by-?one|row 0|first (row|token)|strict|0\.\.i|all[- ]false",
     rejects=[r"device|dtype", r"triu|upper triangle"],
     bodies={0: """
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
"""}, fails=["causal_values"]),
dict(name="wrong_mask_ignores_device", kind="wrong",
     first="causal_mask never passes device= to torch.ones, so the mask is always on the CPU whatever device is asked for",
     ideal="the device argument is ignored: torch.ones(L, L, dtype=torch.bool) without device= is made on the CPU, so a GPU caller gets a CPU mask (device mismatch later)",
     expect=r"device|cuda|gpu|\bcpu\b",
     rejects=[r"triu|diagonal\s*=|transpos", r"wrong dtype|not (a )?bool|float mask"],
     bodies={0: """
return torch.tril(torch.ones(L, L, dtype=torch.bool))
"""}, fails=["causal_meta"]),
dict(name="wrong_masked_fill_inplace", kind="wrong",
     first="apply_mask uses masked_fill_ (in place) on scores and returns it: the caller's scores are overwritten with -inf, no new tensor, and a leaf requiring grad raises",
     ideal="masked_fill_ modifies `scores` itself; the docstring wants a NEW tensor and scores untouched; use masked_fill (no underscore)",
     expect=r"in-?place|masked_fill_|modif|mutat|overwr|untouched|unchanged|new tensor|same tensor|leaf",
     rejects=[r"invert(ed|s)?\b|triu|diagonal", r"device|dtype"],
     bodies={1: """
return scores.masked_fill_(~mask, float("-inf"))
"""}, fails=["apply_unchanged"]),
dict(name="wrong_mask_not_inverted", kind="wrong",
     first="apply_mask fills -inf where the mask is True (masked_fill(mask, -inf)), i.e. nn.MultiheadAttention's 'True = not allowed' convention instead of the kit's 'True = may attend'",
     ideal="the mask's meaning is inverted: it hides the keys a query MAY see and keeps the forbidden ones; needs ~mask (True = may attend in this kit)",
     expect=r"invert|~\s*mask|not\b|negat|opposite|revers|true\s*=\s*(may|allow)|convention|logical_not",
     rejects=[r"in-?place|device|dtype", r"triu|diagonal"],
     bodies={1: """
return scores.masked_fill(mask, float("-inf"))
"""}, fails=["apply_values"]),
dict(name="wrong_finfo_min_fill", kind="wrong",
     first="apply_mask fills torch.finfo(dtype).min (Hugging Face's habit) instead of -inf: finite scores, so a fully masked row is not all -inf and softmax gives it uniform weights instead of zeros",
     ideal="the masked scores must be -inf; finfo.min is finite, so a row whose mask is all False becomes uniform weights after softmax (it should be all -inf, then zeros), and values differ everywhere masked",
     expect=r"-?\s*inf|infinit|finfo|finite|min(imum)? value|large negative|uniform",
     rejects=[r"in-?place|device", r"invert(ed|s)? (the )?mask|triu"],
     bodies={1: """
return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
"""}, fails=["apply_values"]),
dict(name="wrong_padding_off_by_one", kind="wrong",
     first="padding_mask compares j <= lengths[b] instead of j < lengths[b], so the first padding key (position lengths[b]) is still visible",
     ideal="off by one at the boundary: key j = lengths[b] is padding (positions count from 0) but `<=` marks it real; a sequence of length 0 still sees key 0",
     expect=r"off-?by-?one|<=|boundary|<\s*length|strict|one (too many|extra)|first padding|position (counts?|starts?) (from )?0",
     rejects=[r"device|dtype", r"wrong shape|query (axis|dim)|unsqueeze"],
     bodies={2: """
j = torch.arange(L, device=lengths.device)
return (j[None, :] <= lengths[:, None])[:, None, :]
"""}, fails=["padding_values"]),
dict(name="wrong_padding_query_axis", kind="wrong",
     first="padding_mask adds the broadcast axis last ([:, :, None] -> (B, L, 1)) so it masks queries (rows) instead of keys (columns)",
     ideal="the mask has shape (B, L, 1) instead of (B, 1, L): it broadcasts over keys and hides padding QUERIES, not padding keys; the singleton must be the query axis (dim 1)",
     expect=r"shape|\(B,\s*1,\s*L\)|\(B,\s*L,\s*1\)|axis|dim|unsqueeze|None|broadcast|quer(y|ies)|rows?|columns?",
     rejects=[r"off-?by-?one|<=", r"device|dtype"],
     bodies={2: """
j = torch.arange(L, device=lengths.device)
return (j[None, :] < lengths[:, None])[:, :, None]
"""}, fails=["padding_values"]),
dict(name="honest_arange_where", kind="honest",
     first="causal mask from comparing position aranges (key <= query); apply_mask with torch.where; padding mask by expand+compare+unsqueeze",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
pos = torch.arange(L, device=device)
return pos[None, :] <= pos[:, None]        # key j visible from query i iff j <= i
""", """
neg_inf = torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device)
return torch.where(mask, scores, neg_inf)
""", """
B = lengths.shape[0]
keys = torch.arange(L, device=lengths.device).expand(B, L)
return (keys < lengths.unsqueeze(1)).unsqueeze(1)
"""]),
dict(name="honest_triu_clone_cumsum", kind="honest",
     first="causal mask as the complement of triu(1); apply_mask clones then fills in place (on the copy); padding mask by cumsum of ones <= lengths",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
return ~torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)
""", """
out = scores.clone()                      # a new tensor; scores stays as it was
out.masked_fill_(mask.logical_not(), -math.inf)
return out
""", """
count = torch.ones(lengths.shape[0], L, dtype=torch.long, device=lengths.device).cumsum(dim=-1)  # 1..L
return (count <= lengths.view(-1, 1)).view(-1, 1, L)
"""], extra="import math"),
])

# ---------------------------------------------------------------- exercise 5
BASE5_SOFTMAX = """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)   # an all -inf slice: shift by 0
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""
S[5] = dict(base=[BASE5_SOFTMAX, """
scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""], files=[
dict(name="wrong_no_max_shift", kind="wrong",
     first="softmax exponentiates x directly without subtracting the max: e^1e4 overflows to inf and inf/inf gives NaN for large scores (the all -inf guard is there)",
     ideal="the max is not subtracted before exp, so large entries (e.g. 1e4, or ~90 in float32, ~11 in float16) overflow to inf and the row becomes NaN; subtract the slice max first",
     expect=r"overflow|max|stabl|subtract|shift|large|huge|1e4|inf\s*/\s*inf|nan",
     rejects=[r"fully masked|all -?inf row|dim(ension)? argument", r"device|dtype"],
     bodies={0: """
e = torch.exp(x)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}, fails=["softmax_huge"]),
dict(name="wrong_masked_row_nan", kind="wrong",
     first="softmax subtracts the max but does not guard a slice that is entirely -inf: -inf - (-inf) = NaN, so fully masked rows (and queries that see no key in attention) come out NaN instead of zeros",
     ideal="no guard for an all -inf slice: its max is -inf, x - max is NaN, so the chapter's 'classic bug' NaN row appears; use a shift of 0 there and avoid 0/0",
     expect=r"nan|fully[- ]masked|all[- ]-?inf|-inf\s*-\s*-?inf|0\s*/\s*0|guard|zero weights|no key",
     rejects=[r"overflow|1e4", r"dim(ension)? argument|keepdim", r"device|dtype"],
     bodies={0: """
m = x.amax(dim=dim, keepdim=True)
e = torch.exp(x - m)
return e / e.sum(dim=dim, keepdim=True)
"""}, fails=["softmax_all_neginf", "sdpa_fully_masked"]),
dict(name="wrong_where_nan_gradient", kind="wrong",
     first="softmax lets an all -inf slice become NaN and then replaces the NaN by 0 with torch.where: the forward is right but softmax's gradient through that slice is NaN (where does not stop NaN in backward; inside attention the -inf masked_fill happens to zero it)",
     ideal="the NaN is patched after the fact (torch.where(isnan, 0, out)): values are right but backward through a fully masked row multiplies 0 by NaN, so the gradients are NaN instead of 0; guard the max/sum before exp",
     expect=r"nan|gradient|grad|backward|where|0\s*\*\s*nan|fully[- ]masked|all[- ]-?inf",
     rejects=[r"overflow|1e4", r"dim(ension)? argument|keepdim", r"device|dtype"],
     bodies={0: """
m = x.amax(dim=dim, keepdim=True)
e = torch.exp(x - m)
out = e / e.sum(dim=dim, keepdim=True)
return torch.where(torch.isnan(out), torch.zeros_like(out), out)   # fully masked rows -> 0
"""}, fails=["softmax_all_neginf_grad"]),
dict(name="wrong_dim_ignored", kind="wrong",
     first="softmax hard-codes the last axis (amax/sum over -1) and ignores its dim argument; right for dim=-1 (attention) but wrong for any other dim",
     ideal="the `dim` parameter is never used: max and sum are always taken over the last axis, so softmax(x, dim=0) normalises the wrong axis",
     expect=r"\bdim\b|axis|ignor|hard-?cod|last (axis|dim)|-1",
     rejects=[r"overflow|nan|fully masked", r"device|dtype"],
     bodies={0: """
m = x.amax(dim=-1, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(x - m)
s = e.sum(dim=-1, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}, fails=["softmax_other_dim"]),
dict(name="wrong_sum_without_keepdim", kind="wrong",
     first="softmax sums without keepdim=True, so the (..., n) / (...) division broadcasts against the wrong axis: right for 1-D input, a shape error for most matrices, silently wrong for some square ones",
     ideal="missing keepdim on the sum: the denominator loses the reduced axis and broadcasting lines it up with the wrong axis (each entry divided by another row's sum, or a shape error)",
     expect=r"keepdim|broadcast|shape|axis|dimension|denominator|sum",
     rejects=[r"overflow|1e4", r"device|dtype", r"nan gradient"],
     bodies={0: """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(x - m)
s = e.sum(dim=dim)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}, fails=["softmax_basic"]),
dict(name="wrong_scale_by_dv", kind="wrong",
     first="scaled_dot_product_attention divides the scores by sqrt(v.size(-1)) = sqrt(d_v) instead of sqrt(d_k) = sqrt(q.size(-1)); right only when d_v == d_k",
     ideal="the scale uses the value width d_v instead of the query/key width d_k; indistinguishable when d_v == d_k, wrong weights whenever they differ",
     expect=r"d_?v|v\.size|value width|d_?k|q\.size\(\s*-1\)|scal|sqrt",
     rejects=[r"overflow|nan|fully masked", r"device|dtype", r"causal"],
     bodies={1: """
scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""}, fails=["sdpa_dv_neq_dk"]),
dict(name="wrong_mask_after_softmax", kind="wrong",
     first="scaled_dot_product_attention zeroes the masked weights AFTER the softmax (no -inf before it) and does not renormalise, so masked rows no longer sum to 1",
     ideal="the mask must be applied to the scores (-inf) before softmax; zeroing weights afterwards leaves rows summing to less than 1 (the visible keys' weights are too small)",
     expect=r"before|after|(sum|add) (up )?to (1|one)|normali|-inf|order|softmax",
     rejects=[r"overflow|1e4", r"device|dtype", r"d_?v\b"],
     bodies={1: """
scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
weights = softmax(scores, dim=-1)
if mask is not None:
    weights = weights.masked_fill(~mask, 0.0)
return weights @ v, weights
"""}, fails=["sdpa_mask"]),
dict(name="wrong_default_causal", kind="wrong",
     first="scaled_dot_product_attention adds a causal mask when mask is None (copying the MHA module's default), but the docstring says None means every query reads every key",
     ideal="with mask=None no mask must be applied; this adds a causal (tril) mask, so unmasked attention is wrong (queries cannot see later keys)",
     expect=r"causal|none|default|tril|no mask|every key|future",
     rejects=[r"overflow|nan", r"device|dtype", r"d_?v\b"],
     bodies={1: """
L_q, L_k = q.size(-2), k.size(-2)
if mask is None:   # language models never look ahead
    mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril()
scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""}, fails=["sdpa_nomask"]),
dict(name="honest_logsumexp_where", kind="honest",
     first="softmax as exp(z - logsumexp(z)) with z = x - max, all -inf slices swapped for zeros before the max/logsumexp; attention with einsum and torch.where",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
dead = torch.isneginf(x).all(dim=dim, keepdim=True)       # slices with nothing to normalise
z = x - x.masked_fill(dead, 0.0).amax(dim=dim, keepdim=True)   # max 0 in live slices, -inf in dead ones
lse = torch.logsumexp(z.masked_fill(dead, 0.0), dim=dim, keepdim=True)
return torch.exp(z - lse)                                   # dead slices: exp(-inf) = 0
""", """
scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
if mask is not None:
    scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
weights = softmax(scores, dim=-1)
return torch.einsum("...qk,...kd->...qd", weights, v), weights
"""]),
dict(name="honest_movedim_additive", kind="honest",
     first="softmax moves dim last, shifts by max(...).values with nan_to_num(neginf=0), clamps the denominator at 1 (it is >= 1 unless the slice is all -inf); attention with an additive -inf mask (HF style, but -inf)",
     ideal="full marks", expect=r"full marks|pass|correct|✓", rejects=[r"\bis wrong\b|\bmistake (is|in|here)\b|\bincorrect(ly)?\b|\bfails? (the|on|for|when)\b|\b[1-9]\d* (tests? )?failed\b"],
     bodies=["""
xt = x.movedim(dim, -1)
m = torch.nan_to_num(xt.max(dim=-1, keepdim=True).values, neginf=0.0)
e = (xt - m).exp()
z = e.sum(dim=-1, keepdim=True)
return (e / z.clamp(min=1.0)).movedim(-1, dim)   # z >= 1 unless the slice is all -inf (then e = 0)
""", """
scores = torch.matmul(q, k.mT) * (1.0 / math.sqrt(q.size(-1)))
if mask is not None:
    bias = torch.zeros_like(scores).masked_fill(~mask, float("-inf"))   # additive mask
    scores = scores + bias
weights = softmax(scores)
return torch.matmul(weights, v), weights
"""]),
])
