CORRECT = {
    "project": """
        q = x @ w_q  # (..., L, d_k)
        k = x @ w_k  # (..., L, d_k)
        v = x @ w_v  # (..., L, d_v)
        return q, k, v
    """,
    "fused_project": """
        d = w_qkv.size(-1) // 3
        q, k, v = (x @ w_qkv).split(d, dim=-1)  # three (..., L, d)
        return q, k, v
    """,
}

WRONG = [
    dict(
        name="wrong_copy_paste_wk",
        mistake="project computes the keys with W_Q (k = x @ w_q, copy-paste slip); q and v are right, fused_project is right",
        ideal="project's keys are made with the query matrix W_Q instead of W_K, so k equals q; it shows whenever W_K differs from W_Q (and k gets d_k from w_q's shape)",
        expect=r"(\bk\b|keys?).{0,80}(w_?q|W_Q|query (weight|matrix|projection))|(w_?q|W_Q|query (weight|matrix)).{0,80}(keys?|\bk\b)|(w_?k|W_K).{0,40}(unused|ignored|never used|not used)|copy.?paste|k (equals|==|is the same as) q",
        reject=[r"transpos", r"fused_project.{0,40}(wrong|incorrect|split)", r"\bdtype\b", r"scal(e|ing)"],
    ),
    dict(
        name="wrong_weight_transpose",
        mistake="project multiplies by the transposed weights (x @ w.T, as if they were nn.Linear weights of shape (out, in))",
        ideal="project uses x @ W^T instead of x @ W: the weights are already (d_model, d_k); it crashes when d_model != d_k and gives wrong values when they are equal",
        expect=r"transpos|\.T\b|\.t\(\)|nn\.linear.{0,40}(layout|convention|weight)|\(out, ?in\)|shape.{0,40}(d_model, ?d_k)|x ?@ ?w\b.{0,20}(not|instead)",
        reject=[r"fused_project.{0,40}(split|chunk)", r"dtype", r"in.?place", r"detach"],
    ),
    dict(
        name="wrong_view_flatten",
        mistake="project flattens the leading dims with x.view(-1, d_model), which fails for a non-contiguous x (a batch its caller transposed)",
        ideal="project calls x.view(-1, d_model) to flatten the batch dims; view needs contiguous memory, so a transposed (non-contiguous) x raises a RuntimeError; use reshape or just x @ w_q",
        expect=r"\.?view|contiguous|non.?contiguous|stride|reshape|flatten",
        reject=[r"transpos(e|ed) (the )?weight", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)"],
    ),
    dict(
        name="wrong_mm_2d_only",
        mistake="project uses torch.mm, which only accepts 2-D matrices, so any leading batch dim crashes",
        ideal="project uses torch.mm, which accepts only 2-D tensors: x with batch dims (..., L, d_model) raises; use @ / torch.matmul which broadcasts over leading dims",
        expect=r"torch\.mm|\bmm\b|2.?d|two.?dim|batch(ed)? dim|leading dim|matmul|broadcast",
        reject=[r"dtype", r"detach", r"contiguous", r"fused_project.{0,30}split"],
    ),
    dict(
        name="wrong_float_cast",
        mistake="project casts its results with .float(), so float64/float16/bfloat16 inputs come back as float32",
        ideal="project converts q, k, v to float32 (.float()), so for float64, float16 or bfloat16 inputs the outputs have the wrong dtype; return the inputs' dtype",
        expect=r"dtype|float32|\.float\(\)|float64|double|half|bfloat16|float16|precision|cast",
        reject=[r"transpos", r"split", r"view|contiguous"],
    ),
    dict(
        name="wrong_detach_weights",
        mistake="fused_project detaches (and clones) w_qkv to 'leave the inputs unchanged', so no gradient reaches w_qkv",
        ideal="fused_project uses w_qkv.detach().clone(): the values are right but autograd is cut, so w_qkv gets no gradient (None); a product does not change its inputs, no copy is needed",
        expect=r"detach|gradient|grad\b|autograd|backward|no grad|requires_grad|train",
        reject=[r"split (size|width)|wrong (split|order)|interleav", r"dtype", r"transpos"],
    ),
    dict(
        name="wrong_split_size_dmodel",
        mistake="fused_project splits x @ w_qkv into chunks of d_model columns (x.size(-1)) instead of d = w_qkv.size(-1) // 3",
        ideal="fused_project cuts the product into pieces of width d_model (x's width) rather than d = 3d/3 (w_qkv's width / 3); right only when d == d_model, otherwise it fails to unpack or returns wrong widths",
        expect=r"split.{0,40}(d_model|size|width)|(d_model|x\.size\(-1\)|x's width).{0,60}(instead|rather|not)|// ?3|3 ?d ?/ ?3|chunk size|section size|pieces? of (width )?d_model|chunks? of d_model",
        reject=[r"transpos", r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)"],
    ),
    dict(
        name="wrong_interleaved_reshape",
        mistake="fused_project reshapes the last dim as (d, 3) and unbinds, i.e. assumes q, k, v interleaved column by column instead of side by side [W_Q | W_K | W_V]",
        ideal="fused_project treats the columns of w_qkv as interleaved (q0,k0,v0,q1,...) by viewing the last dim as (d, 3); the layout is blocks side by side, so q must be columns 0..d-1, k d..2d-1, v 2d..3d-1; shapes are right, values wrong",
        expect=r"interleav|layout|order|column|\(d, ?3\)|\(3, ?d\)|unflatten|unbind|reshape|view|side by side|block|split|0 ?\.\. ?d|slice",
        reject=[r"dtype", r"detach|no gradient|gradient (is )?(cut|missing|none)", r"transpos(e|ed) (the )?weight"],
    ),
]

HONEST = [
    dict(
        name="honest_einsum",
        method="torch.einsum with an ellipsis for the batch dims; fused_project slices with Tensor.narrow",
        bodies={
            "project": """
                proj = lambda w: torch.einsum("...ld,de->...le", x, w)
                return proj(w_q), proj(w_k), proj(w_v)
            """,
            "fused_project": """
                qkv = torch.einsum("...ld,de->...le", x, w_qkv)  # (..., L, 3d)
                d = qkv.shape[-1] // 3
                return tuple(qkv.narrow(-1, i * d, d) for i in range(3))
            """,
        },
    ),
    dict(
        name="honest_linear_tensordot",
        method="F.linear with the transposed weight (x @ W = linear(x, W^T)); fused_project with torch.tensordot and chunk",
        helpers="""
            import torch.nn.functional as F
        """,
        bodies={
            "project": """
                # nn.Linear stores (out, in) and computes x @ W^T, so pass W^T to get x @ W.
                return tuple(F.linear(x, w.t()) for w in (w_q, w_k, w_v))
            """,
            "fused_project": """
                qkv = torch.tensordot(x, w_qkv, dims=1)  # contracts x's last dim with w's first
                q, k, v = qkv.chunk(3, dim=-1)
                return q, k, v
            """,
        },
    ),
]

BODIES = {
    "wrong_copy_paste_wk": {
        "project": """
            q = x @ w_q  # (..., L, d_k)
            k = x @ w_q  # (..., L, d_k)
            v = x @ w_v  # (..., L, d_v)
            return q, k, v
        """,
    },
    "wrong_weight_transpose": {
        "project": """
            # weights are stored (out, in) like nn.Linear, so transpose them
            q = x @ w_q.T
            k = x @ w_k.T
            v = x @ w_v.T
            return q, k, v
        """,
    },
    "wrong_view_flatten": {
        "project": """
            lead = x.shape[:-1]
            x2 = x.view(-1, x.size(-1))  # (N, d_model): all tokens of all batches as rows
            q = (x2 @ w_q).view(*lead, -1)
            k = (x2 @ w_k).view(*lead, -1)
            v = (x2 @ w_v).view(*lead, -1)
            return q, k, v
        """,
    },
    "wrong_mm_2d_only": {
        "project": """
            q = torch.mm(x, w_q)
            k = torch.mm(x, w_k)
            v = torch.mm(x, w_v)
            return q, k, v
        """,
    },
    "wrong_float_cast": {
        "project": """
            q = (x @ w_q).float()
            k = (x @ w_k).float()
            v = (x @ w_v).float()
            return q, k, v
        """,
    },
    "wrong_detach_weights": {
        "fused_project": """
            w = w_qkv.detach().clone()  # work on a copy so the caller's weights stay unchanged
            d = w.size(-1) // 3
            q, k, v = (x @ w).split(d, dim=-1)
            return q, k, v
        """,
    },
    "wrong_split_size_dmodel": {
        "fused_project": """
            qkv = x @ w_qkv  # (..., L, 3d)
            q, k, v = qkv.split(x.size(-1), dim=-1)
            return q, k, v
        """,
    },
    "wrong_interleaved_reshape": {
        "fused_project": """
            qkv = x @ w_qkv  # (..., L, 3d)
            d = qkv.size(-1) // 3
            q, k, v = qkv.unflatten(-1, (d, 3)).unbind(-1)
            return q, k, v
        """,
    },
}
