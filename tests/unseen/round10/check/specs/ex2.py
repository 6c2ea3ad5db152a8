CORRECT = {
    "attention_scores": """
        return q @ k.transpose(-2, -1)  # (..., L_q, d_k) @ (..., d_k, L_k) -> (..., L_q, L_k)
    """,
}

WRONG = [
    dict(
        name="wrong_transposed_scores",
        mistake="attention_scores returns K Q^T (k @ q.transpose(-2, -1)): the transpose of S, rows are keys",
        ideal="the operands are swapped: k @ q^T gives S^T with shape (L_k, L_q), row j = key j; it hides in self-attention with q == k (S is symmetric) and shows when L_q != L_k or q != k",
        expect=r"swap|operand|K ?Q\^?T|k ?@ ?q|\(L_k, ?L_q\)|rows? (are|is|hold).{0,20}keys?|keys? (in|on|along) (the )?rows|S\^?T|transpose of (S|the scores)|wrong (orientation|way round)|order of (the )?(operands|product)",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)", r"in.?place"],
    ),
    dict(
        name="wrong_fixed_axes_3d",
        mistake="attention_scores transposes k with transpose(1, 2) (fixed axes): right only for 3-D (B, L, d) inputs; crashes on 2-D and swaps heads with positions on 4-D",
        ideal="k.transpose(1, 2) hard-codes the axes of a 3-D tensor: for 2-D inputs it raises, for (B, H, L, d) it swaps H and L; use negative dims transpose(-2, -1)",
        expect=r"transpose\(1, ?2\)|negative (dim|ax|ind)|-2, ?-1|fixed (ax|dim)|hard.?cod|last two (dim|ax)|(2|4).?d (input|tensor)s?|heads? (and|with) (the )?(positions|tokens|L\b)",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)"],
    ),
    dict(
        name="wrong_zeros_no_dtype",
        mistake="attention_scores fills a torch.zeros(...) made without dtype=/device= in a loop, so the result is always float32 on the CPU",
        ideal="the output tensor is created with torch.zeros(shape) and no dtype/device, so float64/float16/bfloat16 inputs give float32 scores (float64 precision lost) and CUDA inputs give CPU scores; make it with dtype=q.dtype, device=q.device (or just q @ k^T)",
        expect=r"dtype|float32|float64|double|precision|device|zeros|cpu|new_zeros|zeros_like",
        reject=[r"transpos", r"scal(e|ing)|sqrt|√", r"detach"],
    ),
    dict(
        name="wrong_scaled_already",
        mistake="attention_scores already divides by sqrt(d_k); the docstring says raw, unscaled scores (scaling is exercise 3)",
        ideal="the scores are divided by √d_k although exercise 2 asks for the raw Q K^T (not scaled yet); every score is too small by a factor √d_k (right only at d_k = 1)",
        expect=r"scal(e|ed|ing)|sqrt|√|d_k|divid|raw|factor",
        reject=[r"transpos", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)", r"in.?place"],
    ),
    dict(
        name="wrong_inplace_transpose",
        mistake="attention_scores calls k.transpose_(-2, -1), transposing the caller's k in place (its shape changes; a leaf that requires grad raises)",
        ideal="k.transpose_ is the in-place version: it changes the caller's k (its shape becomes (..., d_k, L_k)), so a second call or any later use of k breaks, and on a leaf that requires grad it raises; use k.transpose(-2, -1)",
        expect=r"in.?place|transpose_|modif|mutat|chang(e|es|ed) (the )?(input|caller|k\b)|input.{0,30}(unchanged|changed|altered)|side.?effect",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"wrong (ax|dim)"],
    ),
    dict(
        name="wrong_reshape_not_transpose",
        mistake="attention_scores 'transposes' k with k.reshape(..., d_k, L_k): same shape as k^T but the numbers are re-flowed, not transposed",
        ideal="reshape/view to (d_k, L_k) is not a transpose: it keeps memory order and refills the shape, so the columns are not the keys; right only when L_k == 1 or d_k == 1; use transpose(-2, -1)",
        expect=r"reshape|view|transpos|memory order|re.?flow|not (a|the same as a) transpose|scrambl|permut",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)", r"in.?place"],
    ),
    dict(
        name="wrong_data_attr",
        mistake="attention_scores uses k.data.transpose(-2, -1): .data bypasses autograd, so k gets no gradient",
        ideal="k.data takes the keys outside autograd: the scores are right but no gradient flows back to k (k.grad is None / zero), so W_K would never train; use k itself",
        expect=r"\.data|autograd|gradient|grad\b|backward|detach|train",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"transpos(e|ed)? (the )?wrong"],
    ),
    dict(
        name="wrong_squeeze_batch",
        mistake="attention_scores squeezes q and k to 'drop batch dims of size 1' before the product, so any size-1 dim (batch 1, one query L_q = 1, d_k = 1) vanishes from the result or crashes",
        ideal="q.squeeze()/k.squeeze() remove every dim of size 1, not only the batch: with B = 1 the batch dim is lost, with L_q = 1 (one query, as in generation) the result is (L_k,) or fails; the output shape must be (..., L_q, L_k)",
        expect=r"squeez|size.?1|singleton|dim(ension)?s? (of size 1|dropped|lost|removed)|L_q ?= ?1|batch (dim|of|size) ?(of )?1|one query|single query",
        reject=[r"scal(e|ing)|sqrt|√", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)"],
    ),
]

BODIES = {
    "wrong_transposed_scores": {"attention_scores": """
        return k @ q.transpose(-2, -1)
    """},
    "wrong_fixed_axes_3d": {"attention_scores": """
        return q @ k.transpose(1, 2)  # (B, L_q, d) @ (B, d, L_k)
    """},
    "wrong_zeros_no_dtype": {"attention_scores": """
        L_q, L_k = q.size(-2), k.size(-2)
        S = torch.zeros(*q.shape[:-2], L_q, L_k)
        for i in range(L_q):
            for j in range(L_k):
                S[..., i, j] = (q[..., i, :] * k[..., j, :]).sum(-1)  # q_i . k_j
        return S
    """},
    "wrong_scaled_already": {"attention_scores": """
        return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    """},
    "wrong_inplace_transpose": {"attention_scores": """
        k.transpose_(-2, -1)  # (..., d_k, L_k)
        return q @ k
    """},
    "wrong_reshape_not_transpose": {"attention_scores": """
        kt = k.reshape(*k.shape[:-2], k.size(-1), k.size(-2))  # (..., d_k, L_k)
        return q @ kt
    """},
    "wrong_data_attr": {"attention_scores": """
        return q @ k.data.transpose(-2, -1)
    """},
    "wrong_squeeze_batch": {"attention_scores": """
        q2, k2 = q.squeeze(), k.squeeze()  # drop batch dims of size 1
        return q2 @ k2.transpose(-2, -1)
    """},
}
WRONG[3]["helpers"] = "import math"

HONEST = [
    dict(
        name="honest_einsum",
        method="torch.einsum('...id,...jd->...ij'): the dot product of every query row with every key row, no explicit transpose",
        bodies={"attention_scores": """
            return torch.einsum("...id,...jd->...ij", q, k)
        """},
    ),
    dict(
        name="honest_transpose_identity",
        method="S = (K Q^T)^T: computes the keys-by-queries product and transposes it back with .mT",
        bodies={"attention_scores": """
            # (K Q^T)^T = Q K^T; .mT swaps the last two dims whatever the batch dims
            return torch.matmul(k, q.mT).mT
        """},
    ),
]
