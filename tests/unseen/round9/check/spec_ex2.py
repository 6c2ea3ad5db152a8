VARIANTS = [
    dict(
        name="transpose_1_2", kind="wrong",
        mistake="uses k.transpose(1, 2), which is the last two dims only for 3-D inputs: unbatched (L, d) inputs fail and 4-D (B, H, L, d) inputs swap heads with positions",
        ideal="Index the key's last two dims from the end: k.transpose(-2, -1) works with any number of leading batch dims.\ntranspose(1, 2) only means 'the last two' when k is 3-D.",
        expect=[r"transpose\(-2|-2, ?-1|-1, ?-2|negative|last two|leading|batch|4-?d|2-?d|dim"],
        reject=[r"\bdtype\b", r"scal"],
        bodies={"attention_scores": """
            return q @ k.transpose(1, 2)
            """},
    ),
    dict(
        name="keys_times_queries", kind="wrong",
        mistake="computes K Qᵀ instead of Q Kᵀ: the result is the transpose, (L_k, L_q), rows are keys and columns are queries",
        ideal="Row i must hold query i's scores: S = Q Kᵀ. k @ q.transpose(-2, -1) gives Sᵀ, which only has the right shape when L_q == L_k\nand even then is transposed.",
        expect=[r"transpos|K\s*Q|k\s*@\s*q|order|swap|rows?.{0,40}(query|queries|keys?)|\(L_k, ?L_q\)"],
        reject=[r"\bdtype\b", r"scal"],
        bodies={"attention_scores": """
            return k @ q.transpose(-2, -1)
            """},
    ),
    dict(
        name="elementwise_diagonal", kind="wrong",
        mistake="computes (q * k).sum(-1): only query i against key i (the diagonal of S), shape (..., L), not every query against every key",
        ideal="Each query must be scored against every key; an elementwise product pairs query i with key i only (and needs L_q == L_k).\nUse the matrix product q @ k.transpose(-2, -1) for the (L_q, L_k) matrix.",
        expect=[r"diagonal|every (key|query)|all (keys|pairs)|element-?wise|\(L_q, ?L_k\)|shape|matrix (product|multipl)|outer"],
        reject=[r"\bdtype\b", r"scal"],
        bodies={"attention_scores": """
            return (q * k).sum(dim=-1)
            """},
    ),
    dict(
        name="float32_matmul", kind="wrong",
        mistake="casts both inputs to float32 before the product, so float64 inputs lose precision and come back as float32 (and float16 as float32)",
        ideal="Keep the inputs' dtype: scores in float64 must stay float64. Drop .float()/.to(torch.float32) and multiply q and k as they are.",
        expect=[r"dtype|float32|float64|precision|\.float\(\)|cast"],
        reject=[r"transpos", r"scal"],
        bodies={"attention_scores": """
            return torch.matmul(q.to(torch.float32), k.to(torch.float32).transpose(-2, -1))
            """},
    ),
    dict(
        name="numpy_port", kind="wrong",
        mistake="computes the scores in NumPy (detach().numpy(), swapaxes, torch.from_numpy): the result is cut off from autograd (and fails on a GPU)",
        ideal="Going through NumPy detaches the graph: no gradient reaches q or k, so attention cannot train (and .numpy() fails for CUDA tensors).\nStay in torch: q @ k.transpose(-2, -1).",
        expect=[r"numpy|detach|gradient|grad|autograd|backward"],
        reject=[r"\bdtype\b", r"scal"],
        bodies={"attention_scores": """
            s = q.detach().numpy() @ k.detach().numpy().swapaxes(-1, -2)
            return torch.from_numpy(s)
            """},
    ),
    dict(
        name="transpose_inplace", kind="wrong",
        mistake="calls k.transpose_(-2, -1), which transposes the caller's k tensor in place (its shape changes after the call)",
        ideal="Trailing-underscore methods modify their input: after your call the caller's k is (…, d_k, L_k).\nUse the out-of-place k.transpose(-2, -1) (a view; k itself is left alone).",
        expect=[r"in[- ]?place|transpose_|modif|mutat|chang\w* (the )?(input|caller|k\b)|underscore"],
        reject=[r"\bdtype\b", r"scal"],
        bodies={"attention_scores": """
            k.transpose_(-2, -1)
            return q @ k
            """},
    ),
    dict(
        name="prescaled", kind="wrong",
        mistake="already divides the scores by √d_k; exercise 2 asks for the raw scores Q Kᵀ (scaling is exercise 3)",
        ideal="attention_scores returns the raw dot products S[i, j] = q_i · k_j; the 1/√d_k scaling comes later, in exercise 3.\nRemove the division.",
        expect=[r"scal|sqrt|√|d_k|divid|raw"],
        reject=[r"\bdtype\b", r"transpos"],
        bodies={"attention_scores": """
            d_k = q.size(-1)
            return q @ k.transpose(-2, -1) / math.sqrt(d_k)
            """},
        helpers="import math",
    ),
    dict(
        name="cosine_similarity", kind="wrong",
        mistake="normalises q and k to unit length first (cosine similarity) instead of taking the plain dot product",
        ideal="The chapter's score is the dot product q · k, whose size carries information (the model sharpens attention by growing W_Q, W_K).\nDon't normalise: S = q @ k.transpose(-2, -1).",
        expect=[r"cosine|normali[sz]|unit|length|norm\b|magnitude|dot product"],
        reject=[r"\bdtype\b", r"transpos"],
        helpers="import torch.nn.functional as F",
        bodies={"attention_scores": """
            qn = F.normalize(q, dim=-1)
            kn = F.normalize(k, dim=-1)
            return qn @ kn.transpose(-2, -1)
            """},
    ),
    dict(
        name="einsum", kind="honest",
        method="torch.einsum('...qd,...kd->...qk') with an ellipsis for the batch dims",
        bodies={"attention_scores": """
            return torch.einsum("...qd,...kd->...qk", q, k)
            """},
    ),
    dict(
        name="broadcast_sum", kind="honest",
        method="broadcasting: q (..., L_q, 1, d) times k (..., 1, L_k, d), summed over d",
        bodies={"attention_scores": """
            prod = q.unsqueeze(-2) * k.unsqueeze(-3)  # (..., L_q, L_k, d_k)
            return prod.sum(dim=-1)
            """},
    ),
]
