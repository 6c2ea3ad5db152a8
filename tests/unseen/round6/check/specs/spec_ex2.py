EX = 2
STUB = "exercise2_scoring.py"
CORRECT = {"attention_scores": """
return q @ k.transpose(-2, -1)  # (..., L_q, L_k)
"""}
VARIANTS = [
    dict(slug="dot_T", kind="wrong",
         mistake="uses k.T, which reverses ALL dims of a batched k (and only means a transpose of the last two for 2-D inputs)",
         ideal="attention_scores uses k.T, which reverses every dimension of k, so it is right for 2-D inputs but wrong (or an error) once batch or head dims are in front; it needs k.transpose(-2, -1).",
         expect=[r"\.T\b|\bT\b|revers|all (the )?dim", r"batch|head|leading|2-?d|transpose\(-2"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"scal(e|ing) (is |was )?(missing|wrong)|forgot(ten)? to scale|divides? by (√|sqrt)"],
         bodies={"attention_scores": """
return q @ k.T
"""}),
    dict(slug="transpose_01", kind="wrong",
         mistake="transposes k with transpose(0, 1), the first two dims, which is only the last two for unbatched inputs",
         ideal="attention_scores transposes k with transpose(0, 1), which swaps the first two dims instead of the last two, so batched or multi-head inputs give wrong scores or errors; it should be transpose(-2, -1).",
         expect=[r"transpose\(0, ?1\)|first two|dims? 0 and 1|wrong (dim|axis|axes)", r"batch|head|leading|last two|-2, ?-1"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"scal(e|ing) (is |was )?(missing|wrong)|forgot(ten)? to scale|divides? by (√|sqrt)"],
         bodies={"attention_scores": """
return torch.matmul(q, k.transpose(0, 1))
"""}),
    dict(slug="keys_on_rows", kind="wrong",
         mistake="computes K Q^T, so rows are keys and columns queries: the transpose of S, of shape (L_k, L_q)",
         ideal="attention_scores returns K Q^T instead of Q K^T, so the result is transposed (L_k, L_q) with keys on the rows; it only has the right shape when L_q == L_k and even then the values are transposed.",
         expect=[r"k ?@ ?q|k ?q\^?t|k ?qᵀ|transposed (result|scores|matrix)|keys on (the )?rows|swapp", r"l_k|l_q|row|shape|order"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"attention_scores": """
return k @ q.transpose(-2, -1)
"""}),
    dict(slug="einsum_3d_only", kind="wrong",
         mistake="hard-codes exactly one batch dim with einsum('bqd,bkd->bqk'), so unbatched (2-D) and multi-head (4-D) inputs fail",
         ideal="attention_scores uses einsum('bqd,bkd->bqk'), which accepts exactly one batch dim, so 2-D inputs and 4-D (batch, heads) inputs fail although any leading dims must work.",
         expect=[r"einsum|3-?d|one batch|exactly|rank|number of dim", r"2-?d|4-?d|head|leading|any"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"scal(e|ing) (is |was )?(missing|wrong)|forgot(ten)? to scale|divides? by (√|sqrt)"],
         bodies={"attention_scores": """
return torch.einsum("bqd,bkd->bqk", q, k)
"""}),
    dict(slug="double_result", kind="wrong",
         mistake="does the product in float64 for accuracy and returns float64 for float32 (and half) inputs",
         ideal="attention_scores casts q and k to float64 (.double()) and returns the float64 product, so float32 or half inputs do not come back in their own dtype.",
         expect=[r"float64|double|dtype|precision"],
         reject=[r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu", r"wrong shape|shape (is |was )?wrong|shape mismatch"],
         bodies={"attention_scores": """
s = q.double() @ k.double().transpose(-2, -1)  # accumulate in double precision
return s
"""}),
    dict(slug="transpose_inplace", kind="wrong",
         mistake="uses the in-place k.transpose_(-2, -1), which swaps the caller's k so it is left as (..., d_k, L_k)",
         ideal="attention_scores uses the in-place k.transpose_(-2, -1), which changes the caller's k to shape (..., d_k, L_k) although inputs must be left unchanged.",
         expect=[r"in[- ]?place|transpose_|modif|mutat|chang", r"input|caller|\bk\b"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"scal(e|ing) (is |was )?(missing|wrong)|forgot(ten)? to scale|divides? by (√|sqrt)"],
         bodies={"attention_scores": """
return q @ k.transpose_(-2, -1)
"""}),
    dict(slug="clone_detach_k", kind="wrong",
         mistake="takes k.clone().detach() to avoid touching the input, which cuts the keys out of autograd: no gradient reaches k",
         ideal="attention_scores uses k.clone().detach(), which removes the keys from the autograd graph, so no gradient flows back to k (forward values are right).",
         expect=[r"detach|autograd|graph", r"grad"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong shape|shape (is |was )?wrong|shape mismatch"],
         bodies={"attention_scores": """
kt = k.clone().detach().transpose(-2, -1)  # a copy, so k itself is untouched
return q @ kt
"""}),
    dict(slug="squeeze_result", kind="wrong",
         mistake="squeezes the result to drop size-1 dims, so one query (L_q = 1, generation) or one key or a batch of one loses its axis",
         ideal="attention_scores calls .squeeze() on the result, which drops every size-1 dimension, so with one query (L_q = 1), one key or batch size 1 the output loses an axis instead of having shape (..., L_q, L_k).",
         expect=[r"squeeze|size[- ]?1|singleton", r"shape|dim|axis|l_q\s*=\s*1|one query"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"attention_scores": """
return (q @ k.transpose(-2, -1)).squeeze()
"""}),
    dict(slug="loop_cpu_buffer", kind="wrong",
         mistake="fills the scores column by column into a buffer made with torch.empty(..., dtype=q.dtype) but no device=, so GPU inputs fail",
         ideal="attention_scores allocates its output with torch.empty(...) without device=q.device, so the buffer is on the CPU and the function fails for inputs on a GPU (or other device).",
         expect=[r"device|cuda|gpu|cpu"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"transpos(e|ed|ing) (the )?(weight|w_|k\b|key)|missing (a )?transpose|needs? a transpose"],
         bodies={"attention_scores": """
S = torch.empty(*q.shape[:-1], k.shape[-2], dtype=q.dtype)
for j in range(k.shape[-2]):
    S[..., j] = (q * k[..., j:j + 1, :]).sum(-1)  # q_i . k_j for every query i
return S
"""}),
    dict(slug="einsum_ellipsis", kind="honest",
         method="einsum '...id,...jd->...ij' (the dot product of every query with every key written out)",
         ideal="Correct: the einsum sums q_i[m] k_j[m] over m for any leading dims, which is Q K^T.",
         bodies={"attention_scores": """
return torch.einsum("...id,...jd->...ij", q, k)
"""}),
    dict(slug="broadcast_sum", kind="honest",
         method="broadcast q (..., L_q, 1, d) against k (..., 1, L_k, d) and sum the products over d",
         ideal="Correct: broadcasting the queries against the keys and summing over the width is the definition S_ij = q_i . k_j.",
         bodies={"attention_scores": """
return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)
"""}),
]
