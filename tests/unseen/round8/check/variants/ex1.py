DEFAULT = {
    "project": """
        return x @ w_q, x @ w_k, x @ w_v
    """,
    "fused_project": """
        d = w_qkv.size(-1) // 3
        q, k, v = (x @ w_qkv).split(d, dim=-1)
        return q, k, v
    """,
}

VARIANTS = [
    dict(kind="wrong", name="linear_weight_transpose",
         mistake="project multiplies by the transposed weights (x @ W.T), as nn.Linear stores them, although W_Q here is (d_model, d_k)",
         ideal="project computes x @ w_q.T like nn.Linear's (out, in) weight layout, but the weights are given as (d_model, d_k), so Q = X W_Q needs no transpose; it fails (or is silently wrong when d_model == d_k).",
         expect=[r"transpos", r"\.T\b|nn\.Linear|\(out, in\)|layout"],
         reject=[r"split|fused"],
         bodies={"project": """
        # weights as in nn.Linear: y = x W^T
        return x @ w_q.T, x @ w_k.T, x @ w_v.T
    """}),
    dict(kind="wrong", name="split_by_d_model",
         mistake="fused_project cuts x @ w_qkv into pieces of width d_model (as the chapter's MHA does) instead of width d = w_qkv.size(-1) // 3",
         ideal="fused_project splits with x.size(-1) (d_model) as the chunk width, copied from the chapter's MultiHeadAttention where d == d_model; here each part is d = 3d/3 wide, so whenever d != d_model the pieces are wrong.",
         expect=[r"d_model", r"split|chunk|width"],
         reject=[r"transpos"],
         bodies={"fused_project": """
        D = x.size(-1)
        q, k, v = (x @ w_qkv).split(D, dim=-1)
        return q, k, v
    """}),
    dict(kind="wrong", name="einsum_one_batch_dim",
         mistake="project uses einsum 'bld,dk->blk', which demands exactly one batch dim, so an unbatched (L, d_model) or a (B, H, L, d_model) input fails",
         ideal="The einsum subscripts 'bld,dk->blk' hard-code exactly one leading batch dim; the contract allows any number of leading dims (none, or several), which fail; use '...ld,dk->...lk' or @.",
         expect=[r"einsum|subscript", r"batch dim|leading|unbatched|\.\.\."],
         bodies={"project": """
        q = torch.einsum("bld,dk->blk", x, w_q)
        k = torch.einsum("bld,dk->blk", x, w_k)
        v = torch.einsum("bld,dk->blk", x, w_v)
        return q, k, v
    """}),
    dict(kind="wrong", name="upcast_to_float32",
         mistake="project casts x and the weights to float32 'for accuracy' and returns float32, whatever the inputs' dtype",
         ideal="project calls .float() on the inputs and returns float32 tensors, so float64, float16 and bfloat16 inputs come back in the wrong dtype (and float64 loses precision); the contract is to return the inputs' dtype.",
         expect=[r"float32|\.float\(\)", r"dtype"],
         reject=[r"transpos"],
         bodies={"project": """
        xf = x.float()
        return xf @ w_q.float(), xf @ w_k.float(), xf @ w_v.float()
    """}),
    dict(kind="wrong", name="unsqueeze_inplace_input",
         mistake="project turns an unbatched x into a batch of one with x.unsqueeze_(0), which changes the caller's tensor",
         ideal="x.unsqueeze_(0) is an in-place op: the caller's x itself gains a batch dim (its shape changes to (1, L, d_model)), so the input is not left unchanged; use x.unsqueeze(0) or just x @ w, which needs no batch dim.",
         expect=[r"unsqueeze_|in[- ]place", r"input|caller|x itself|shape"],
         bodies={"project": """
        squeeze = x.dim() == 2
        if squeeze:
            x.unsqueeze_(0)  # make it a batch of one
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        if squeeze:
            q, k, v = q.squeeze(0), k.squeeze(0), v.squeeze(0)
        return q, k, v
    """}),
    dict(kind="wrong", name="weight_data_no_grad",
         mistake="fused_project splits w_qkv.data, so no gradient reaches the fused weight",
         ideal="Using w_qkv.data takes the weight out of the autograd graph: the loss gets no gradient with respect to w_qkv (it would never train); split x @ w_qkv itself.",
         expect=[r"\.data|detach|autograd|graph", r"gradient|grad|train"],
         bodies={"fused_project": """
        w_q, w_k, w_v = w_qkv.data.chunk(3, dim=1)
        return x @ w_q, x @ w_k, x @ w_v
    """}),
    dict(kind="wrong", name="nanogpt_split_dim2",
         mistake="fused_project splits along dim=2, as nanoGPT does for (B, T, 3C), which is only the last dim for 3-D input",
         ideal="split(d, dim=2) is copied from nanoGPT, where the input is always (B, T, C); with no batch dim or more than one, dim 2 is not the feature dim, so it errors or cuts the wrong axis; use dim=-1.",
         expect=[r"dim\s*=?\s*2|dim 2", r"dim\s*=?\s*-1|last dim|batch dim|leading"],
         bodies={"fused_project": """
        d = w_qkv.size(1) // 3
        q, k, v = (x @ w_qkv).split(d, dim=2)
        return q, k, v
    """}),
    dict(kind="wrong", name="interleaved_columns",
         mistake="fused_project reads the fused columns as interleaved (q0, k0, v0, q1, ...) with a view (..., d, 3), not as three side-by-side blocks",
         ideal="fused_project views the last dim as (d, 3) and unbinds the 3, i.e. it assumes interleaved columns q0,k0,v0,q1,...; the contract puts W_Q, W_K, W_V side by side (columns 0..d-1 are W_Q), so it should be (3, d) / split into consecutive blocks.",
         expect=[r"interleav|\(d, 3\)|side by side|consecutive|block"],
         reject=[r"transpos"],
         bodies={"fused_project": """
        d = w_qkv.size(-1) // 3
        qkv = (x @ w_qkv).unflatten(-1, (d, 3))
        q, k, v = qkv.unbind(-1)
        return q, k, v
    """}),
    dict(kind="honest", name="einsum_and_slices",
         method="einsum with an ellipsis for project; fused_project slices W_QKV's column blocks and reuses project",
         bodies={"project": """
        q = torch.einsum("...ld,dk->...lk", x, w_q)
        k = torch.einsum("...ld,dk->...lk", x, w_k)
        v = torch.einsum("...ld,dk->...lk", x, w_v)
        return q, k, v
    """, "fused_project": """
        d = w_qkv.shape[1] // 3
        return project(x, w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:])
    """}),
    dict(kind="honest", name="flatten_rows_matmul",
         method="flattens the leading dims into rows, one torch.matmul on a 2-D matrix, reshapes back; fused output viewed as (..., 3, d) and unbound",
         bodies={"project": """
        lead = x.shape[:-1]
        rows = x.reshape(-1, x.shape[-1])
        outs = []
        for w in (w_q, w_k, w_v):
            outs.append(torch.matmul(rows, w).reshape(*lead, w.shape[-1]))
        return tuple(outs)
    """, "fused_project": """
        d = w_qkv.shape[-1] // 3
        y = torch.matmul(x, w_qkv)
        q, k, v = y.reshape(*y.shape[:-1], 3, d).unbind(dim=-2)
        return q, k, v
    """}),
]
