from build import H, W

BASE = {
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

FILES = [
    W("fused_interleaved_columns",
      "fused_project reads the 3d columns as d interleaved (q, k, v) triples (unflatten(-1, (d, 3))) instead of three consecutive blocks [W_Q | W_K | W_V]",
      "fused_project reshapes x @ w_qkv to (..., L, d, 3) and unbinds the last axis, which treats the columns as interleaved q/k/v triples; the columns are three consecutive blocks (0..d-1 are W_Q, d..2d-1 W_K, 2d..3d-1 W_V), so the product must be split into three consecutive chunks of width d.",
      [r"fused_project", r"interleav|consecutive|contiguous (block|chunk|part)|split\(d|chunk\(3|column (layout|order|blocks?)|blocks? of (width )?d"],
      [r"transpos(e|ed) (the )?weights?", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"fused_project": """
        qkv = x @ w_qkv  # (..., L, 3d)
        d = w_qkv.size(-1) // 3
        # each token's 3d numbers as d triples (q_i, k_i, v_i)
        q, k, v = qkv.unflatten(-1, (d, 3)).unbind(-1)
        return q, k, v
    """}),
    W("split_three_pieces",
      "fused_project calls split(3, dim=-1) meaning 'three parts', but Tensor.split takes the chunk size, so it cuts 3d into d pieces of width 3 (only right when d == 3)",
      "fused_project calls (x @ w_qkv).split(3, dim=-1), but Tensor.split takes the size of each chunk, not the number of chunks: it cuts the 3d columns into d pieces of width 3 and the unpacking into q, k, v fails unless d = 3; use split(d, dim=-1) or chunk(3, dim=-1).",
      [r"fused_project", r"split\(3|split.{0,40}(size|width)|chunk\(3|chunk size|number of (chunks|parts|pieces)|too many values|unpack"],
      [r"transpos(e|ed) (the )?weights?", r"\bdtype\b.*(lost|changed|not kept)", r"interleav"],
      {"fused_project": """
        qkv = x @ w_qkv  # (..., L, 3d)
        q, k, v = qkv.split(3, dim=-1)  # Q, K and V: three parts
        return q, k, v
    """}),
    W("linear_transposes_weights",
      "project uses F.linear(x, w), which computes x @ w.T (nn.Linear's (out, in) weight layout), on weights stored (d_model, d_k)",
      "project calls torch.nn.functional.linear(x, w_q), which computes x @ w_q.T because nn.Linear stores its weight as (out, in); the stub's W_Q is (d_model, d_k), so the product is transposed: it fails when d_model != d_k and gives X W^T (wrong values) when the weights are square; use x @ w_q.",
      [r"\bproject\b", r"F\.linear|functional\.linear|\.T\b|transpos|\(out, ?in\)|x ?@ ?w(_q)?\.T"],
      [r"split|chunk", r"\bdtype\b.*(lost|changed|not kept)", r"in.place"],
      {"project": """
        import torch.nn.functional as F

        # nn.Linear's functional form: one projection per weight, no bias
        q = F.linear(x, w_q)
        k = F.linear(x, w_k)
        v = F.linear(x, w_v)
        return q, k, v
    """}),
    W("einsum_fixed_batch",
      "project writes the projections as einsum('bld,dk->blk'), which only accepts exactly one batch dim: unbatched (L, d_model) or (B, H, L, d_model) inputs crash",
      "project uses torch.einsum('bld,dk->blk', ...), which hard-codes exactly one leading batch dim, so an unbatched (L, d_model) x or one with two leading dims raises an einsum shape error; the docstring allows any number of leading dims: use '...ld,dk->...lk' or plain x @ w_q.",
      [r"\bproject\b", r"einsum|bld|ellipsis|\.\.\.|leading (batch )?dim|batch dim|unbatched|number of dim|any number"],
      [r"split|chunk", r"\bdtype\b.*(lost|changed|not kept)", r"transpos(e|ed) (the )?weights?"],
      {"project": """
        q = torch.einsum("bld,dk->blk", x, w_q)  # (B, L, d_k)
        k = torch.einsum("bld,dk->blk", x, w_k)  # (B, L, d_k)
        v = torch.einsum("bld,dk->blk", x, w_v)  # (B, L, d_v)
        return q, k, v
    """}),
    W("fused_casts_float32",
      "fused_project casts x and w_qkv to float32 (.float()) 'in case they are half or int' and never casts back: float64/float16/bfloat16 inputs come back as float32",
      "fused_project converts x and w_qkv with .float() before the product and returns the float32 result, so float64, float16 and bfloat16 inputs come back as float32 (and float64 loses precision); the outputs must keep the inputs' dtype, so multiply them as they are.",
      [r"fused_project", r"\.float\(\)|float32|dtype|cast|precision"],
      [r"split\(3|chunk size|interleav", r"transpos(e|ed) (the )?weights?", r"in.place"],
      {"fused_project": """
        d = w_qkv.size(-1) // 3
        qkv = x.float() @ w_qkv.float()  # float32 in case x or the weights are half precision or ints
        q, k, v = qkv.split(d, dim=-1)
        return q, k, v
    """}),
    W("matmul_out_buffer",
      "fused_project writes the product into a preallocated buffer with torch.matmul(..., out=qkv), which autograd does not support: it raises as soon as an input requires grad",
      "fused_project preallocates qkv and calls torch.matmul(x, w_qkv, out=qkv); functions with out= are not differentiable, so autograd raises as soon as x or w_qkv requires grad and the projection cannot train; write qkv = x @ w_qkv.",
      [r"fused_project", r"out=|preallocat|buffer", r"autograd|differentiab|grad|train"],
      [r"split\(3|chunk size|interleav", r"\bdtype\b.*(lost|changed|not kept)", r"transpos(e|ed) (the )?weights?"],
      {"fused_project": """
        d = w_qkv.size(-1) // 3
        qkv = torch.empty(*x.shape[:-1], 3 * d, dtype=x.dtype, device=x.device)
        torch.matmul(x, w_qkv, out=qkv)  # write straight into the buffer: no temporary
        q, k, v = qkv.split(d, dim=-1)
        return q, k, v
    """}),
    W("unsqueeze_inplace",
      "project adds a batch dim to a 2-D x with x.unsqueeze_(0), an in-place op that changes the caller's tensor to (1, L, d_model) (and raises on a leaf that requires grad)",
      "project calls x.unsqueeze_(0) on an unbatched x: the trailing underscore makes it in place, so the caller's tensor becomes (1, L, d_model) (and a leaf that requires grad raises); `@` already handles any number of batch dims, so no reshaping is needed (or use the out-of-place unsqueeze(0)).",
      [r"\bproject\b", r"unsqueeze_|in.place|in place", r"caller|input|x itself|chang|modif|mutat|leaf|shape"],
      [r"split|chunk", r"\bdtype\b.*(lost|changed|not kept)", r"transpos(e|ed) (the )?weights?"],
      {"project": """
        unbatched = x.dim() == 2
        if unbatched:
            x.unsqueeze_(0)  # treat (L, d_model) as a batch of one
        q = x @ w_q
        k = x @ w_k
        v = x @ w_v
        if unbatched:
            q, k, v = q.squeeze(0), k.squeeze(0), v.squeeze(0)
        return q, k, v
    """}),
    W("split_by_d_model",
      "fused_project splits by x.size(-1) (d_model), copying the chapter's MultiHeadAttention, instead of by d = w_qkv.size(-1) // 3: wrong whenever d != d_model",
      "fused_project splits x @ w_qkv into chunks of x.size(-1) = d_model, as the chapter's MultiHeadAttention can because there d = d_model; here the projections have width d = w_qkv.size(-1) // 3, so with d != d_model the split gives the wrong number of pieces and the unpacking fails; split by w_qkv.size(-1) // 3.",
      [r"fused_project", r"d_model|x\.size\(-1\)|size\(-1\)|width|w_qkv\.size|// ?3|3d"],
      [r"interleav", r"\bdtype\b.*(lost|changed|not kept)", r"transpos(e|ed) (the )?weights?"],
      {"fused_project": """
        D = x.size(-1)  # as in the chapter's MultiHeadAttention: split(D, dim=-1)
        q, k, v = (x @ w_qkv).split(D, dim=-1)
        return q, k, v
    """}),
    W("view_flattens_tokens",
      "project flattens x with x.view(-1, d_model) to do one 2-D matmul, which raises on a non-contiguous x (a transposed or strided batch)",
      "project reshapes x with x.view(-1, d_model) before the product; view needs strides compatible with the new shape, so a non-contiguous x (e.g. a transposed (L, B, d) batch) raises, although `@` would broadcast over the batch dims by itself; use x @ w_q directly (or reshape).",
      [r"\bproject\b", r"\.view|view\(|contiguous|stride"],
      [r"split|chunk", r"\bdtype\b.*(lost|changed|not kept)", r"transpos(e|ed) (the )?weights?"],
      {"project": """
        d_model = x.size(-1)
        rows = x.view(-1, d_model)  # every token of every batch as one row: a single 2-D matmul
        q = (rows @ w_q).view(*x.shape[:-1], -1)
        k = (rows @ w_k).view(*x.shape[:-1], -1)
        v = (rows @ w_v).view(*x.shape[:-1], -1)
        return q, k, v
    """}),
    H("einsum_and_weight_chunks",
      "project with torch.einsum('...ld,dk->...lk'); fused_project cuts W_QKV itself into three (d_model, d) blocks with chunk and reuses project",
      {"project": """
        proj = lambda w: torch.einsum("...ld,dk->...lk", x, w)  # noqa: E731
        return proj(w_q), proj(w_k), proj(w_v)
    """,
       "fused_project": """
        w_q, w_k, w_v = w_qkv.chunk(3, dim=1)  # [W_Q | W_K | W_V]
        return project(x, w_q, w_k, w_v)
    """}),
    H("matmul_unflatten",
      "project as a generator of torch.matmul over the three weights; fused_project does one product and unflattens the last dim to (3, d) before unbinding it",
      {"project": """
        return tuple(torch.matmul(x, w) for w in (w_q, w_k, w_v))
    """,
       "fused_project": """
        qkv = torch.matmul(x, w_qkv)  # (..., L, 3d)
        q, k, v = qkv.unflatten(-1, (3, -1)).unbind(dim=-2)  # (..., L, 3, d) -> three (..., L, d)
        return q, k, v
    """}),
]
