OK_FUSED = """
d = w_qkv.shape[-1] // 3
q, k, v = (x @ w_qkv).split(d, dim=-1)
return q, k, v
"""
OK_PROJECT = """
return x @ w_q, x @ w_k, x @ w_v
"""

VARIANTS = [
    dict(
        name="linear_weight_layout", kind="wrong",
        mistake="project uses F.linear(x, w), i.e. x @ w.T (nn.Linear's (out, in) weight layout), so with square weights it silently multiplies by the transposed matrices",
        ideal="The weights here are (d_model, d_k) and the chapter computes Q = X W_Q; F.linear / nn.Linear expect (out, in) and compute X Wᵀ.\nDrop F.linear and write x @ w_q (and the same for k, v).",
        expect=[r"transpos|\.T\b|W\s*\^?\s*T|layout|(out|output)[ ,_-]*(features?)?[ ,]*(in|input)|nn\.Linear|F\.linear|linear\b"],
        reject=[r"\bdtype\b", r"split"],
        helpers="import torch.nn.functional as F",
        bodies={"project": """
            q = F.linear(x, w_q)
            k = F.linear(x, w_k)
            v = F.linear(x, w_v)
            return q, k, v
            """, "fused_project": OK_FUSED},
    ),
    dict(
        name="fused_interleaved", kind="wrong",
        mistake="fused_project cuts the fused output as if the columns were interleaved (view(..., d, 3).unbind(-1)) instead of taking three consecutive blocks of d columns",
        ideal="w_qkv is [W_Q | W_K | W_V] side by side: columns 0..d-1 are W_Q. Viewing as (d, 3) takes every third column.\nSplit the last dim into three consecutive chunks: (x @ w_qkv).split(d, dim=-1).",
        expect=[r"interleav|every third|strid|consecutive|contiguous (block|chunk)|side by side|columns? 0|block|chunk|split|\[W_Q \| W_K|order"],
        reject=[r"\bdtype\b", r"transpos"],
        bodies={"project": OK_PROJECT, "fused_project": """
            d = w_qkv.shape[-1] // 3
            qkv = x @ w_qkv
            q, k, v = qkv.view(*qkv.shape[:-1], d, 3).unbind(-1)
            return q, k, v
            """},
    ),
    dict(
        name="split_size_three", kind="wrong",
        mistake="fused_project calls split(3, dim=-1), which makes chunks of size 3 rather than 3 chunks; it only works when d == 3 (the chapter's napkin example)",
        ideal="Tensor.split takes the size of each chunk, not the number of chunks: split(3) gives d pieces of width 3.\nUse split(d, dim=-1) with d = w_qkv.shape[-1] // 3, or chunk(3, dim=-1).",
        expect=[r"split|chunk"],
        reject=[r"\bdtype\b", r"transpos"],
        bodies={"project": OK_PROJECT, "fused_project": """
            q, k, v = (x @ w_qkv).split(3, dim=-1)
            return q, k, v
            """},
    ),
    dict(
        name="fused_width_from_x", kind="wrong",
        mistake="fused_project splits with d = x.shape[-1] (d_model) instead of w_qkv.shape[-1] // 3, so it only works when the head width equals d_model",
        ideal="The width of each of q, k, v is w_qkv's last dim divided by 3, which need not be d_model.\nTake d = w_qkv.shape[-1] // 3 before splitting.",
        expect=[r"d_model|x\.shape|width|w_qkv\.shape|// ?3|3 ?d|size of (each|the) (chunk|part|piece)"],
        reject=[r"\bdtype\b", r"transpos"],
        bodies={"project": OK_PROJECT, "fused_project": """
            d = x.shape[-1]
            qkv = x @ w_qkv
            q, k, v = qkv.split(d, dim=-1)
            return q, k, v
            """},
    ),
    dict(
        name="weight_data", kind="wrong",
        mistake="fused_project multiplies by w_qkv.data, so no gradient reaches the fused weight (training never updates W_Q, W_K, W_V)",
        ideal="`.data` hands autograd a tensor it cannot track: the loss has no gradient w.r.t. w_qkv.\nMultiply by w_qkv itself.",
        expect=[r"\.data|gradient|grad|autograd|backward|detach"],
        reject=[r"\bdtype\b", r"split"],
        bodies={"project": OK_PROJECT, "fused_project": """
            d = w_qkv.shape[-1] // 3
            qkv = x @ w_qkv.data
            q, k, v = qkv.split(d, dim=-1)
            return q, k, v
            """},
    ),
    dict(
        name="float32_cast", kind="wrong",
        mistake="project casts x and the weights with .float() before multiplying, so float64 (and float16/bfloat16) inputs come back as float32",
        ideal="Results must be in the inputs' dtype; .float() forces float32 and loses float64 precision.\nDrop the casts: x @ w_q already works in any float dtype.",
        expect=[r"dtype|float32|float64|\.float\(\)|precision|cast"],
        reject=[r"transpos", r"split"],
        bodies={"project": """
            xf = x.float()
            q = xf @ w_q.float()
            k = xf @ w_k.float()
            v = xf @ w_v.float()
            return q, k, v
            """, "fused_project": OK_FUSED},
    ),
    dict(
        name="flatten_view", kind="wrong",
        mistake="project flattens the batch with x.view(-1, d_model), which raises for a non-contiguous x (a batch its caller transposed)",
        ideal="view needs compatible memory; x may be laid out in any order. `@` handles leading dims itself,\nso use x @ w_q directly (or reshape instead of view).",
        expect=[r"contiguous|view|reshape|memory|layout|stride|transpos"],
        reject=[r"\bdtype\b", r"split"],
        bodies={"project": """
            lead = x.shape[:-1]
            flat = x.view(-1, x.shape[-1])
            q = (flat @ w_q).view(*lead, w_q.shape[-1])
            k = (flat @ w_k).view(*lead, w_k.shape[-1])
            v = (flat @ w_v).view(*lead, w_v.shape[-1])
            return q, k, v
            """, "fused_project": OK_FUSED},
    ),
    dict(
        name="einsum_one_batch", kind="wrong",
        mistake="project uses einsum('bld,dk->blk'), which works only with exactly one batch dim (fails for an unbatched (L, d_model) x or for (B, H, L, d_model))",
        ideal="Any number of leading dims may sit in front of (L, d_model); a fixed 'bld' subscript demands exactly one.\nUse '...ld,dk->...lk' or simply x @ w_q.",
        expect=[r"batch|leading|\.\.\.|ellipsis|dim|einsum|shape|unbatched|2-?d|4-?d"],
        reject=[r"\bdtype\b", r"split"],
        bodies={"project": """
            q = torch.einsum("bld,dk->blk", x, w_q)
            k = torch.einsum("bld,dk->blk", x, w_k)
            v = torch.einsum("bld,dk->blk", x, w_v)
            return q, k, v
            """, "fused_project": OK_FUSED},
    ),
    dict(
        name="einsum_tensordot", kind="honest",
        method="einsum with an ellipsis for project; fused_project uses tensordot over d_model and slices the columns",
        bodies={"project": """
            q = torch.einsum("...ld,dk->...lk", x, w_q)
            k = torch.einsum("...ld,dk->...lk", x, w_k)
            v = torch.einsum("...ld,dk->...lk", x, w_v)
            return q, k, v
            """, "fused_project": """
            d = w_qkv.size(-1) // 3
            qkv = torch.tensordot(x, w_qkv, dims=([x.dim() - 1], [0]))
            return qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
            """},
    ),
    dict(
        name="linear_port", kind="honest",
        method="nn.Linear convention done right: F.linear with the transposed weights; project fuses the three weights with torch.cat, fused_project unflattens into (3, d) and unbinds",
        helpers="import torch.nn.functional as F",
        bodies={"project": """
            sizes = [w_q.size(1), w_k.size(1), w_v.size(1)]
            w = torch.cat([w_q, w_k, w_v], dim=1)
            q, k, v = F.linear(x, w.t()).split(sizes, dim=-1)
            return q, k, v
            """, "fused_project": """
            d = w_qkv.size(1) // 3
            qkv = F.linear(x, w_qkv.t())
            q, k, v = qkv.unflatten(-1, (3, d)).unbind(-2)
            return q, k, v
            """},
    ),
]
