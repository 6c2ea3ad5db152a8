DEFAULT = {
    "causal_mask": """
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
    """,
    "apply_mask": """
        return scores.masked_fill(~mask, float("-inf"))
    """,
    "padding_mask": """
        j = torch.arange(L, device=lengths.device)
        return (j < lengths[:, None]).unsqueeze(1)
    """,
}

VARIANTS = [
    dict(kind="wrong", name="causal_excludes_diagonal",
         mistake="causal_mask uses torch.tril(..., diagonal=-1), so a token may not see itself",
         ideal="diagonal=-1 keeps only the entries strictly below the diagonal: query i may see keys 0..i-1 but not itself, and row 0 is all False (a fully masked row); the causal mask includes the diagonal (tril with diagonal=0).",
         expect=[r"diagonal", r"itself|row 0|i-1|strictly below"],
         bodies={"causal_mask": """
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
    """}),
    dict(kind="wrong", name="causal_float_dtype",
         mistake="causal_mask returns torch.tril(torch.ones(L, L)), a float tensor of 0s and 1s, not a bool mask",
         ideal="torch.ones without dtype=torch.bool gives a float32 tensor, so the mask is 0./1. floats instead of bool; ~mask then fails and masked_fill rejects it; make the ones with dtype=torch.bool.",
         expect=[r"bool", r"float|dtype"],
         bodies={"causal_mask": """
        return torch.tril(torch.ones(L, L, device=device))
    """}),
    dict(kind="wrong", name="causal_true_means_masked",
         mistake="causal_mask returns the upper triangle (triu, diagonal=1) as in nn.Transformer's square-subsequent mask, where True means 'masked'",
         ideal="torch.triu(..., diagonal=1) marks the future keys True, the nn.Transformer convention where True = blocked; this kit's mask is True = may attend, so it is exactly inverted (use tril).",
         expect=[r"triu|upper|invert|opposite|convention", r"True|may attend|blocked|masked"],
         bodies={"causal_mask": """
        return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)
    """}),
    dict(kind="wrong", name="apply_alias_index_assign",
         mistake="apply_mask does out = scores; out[~mask] = -inf, thinking out is a copy, so it writes into the caller's scores",
         ideal="out = scores only gives the same tensor a second name, so out[~mask] = -inf is an in-place write into the caller's scores (and can break autograd); the function must return a new tensor: use masked_fill (not masked_fill_) or clone first.",
         expect=[r"alias|same tensor|copy|in[- ]place|clone", r"input|caller|scores itself|untouched"],
         bodies={"apply_mask": """
        out = scores
        out[~mask.expand_as(scores)] = float("-inf")
        return out
    """}),
    dict(kind="wrong", name="apply_finfo_min",
         mistake="apply_mask fills with torch.finfo(dtype).min, the HuggingFace large negative, instead of -inf",
         ideal="torch.finfo(dtype).min is a large finite number, not -inf, so masked scores are finite and a fully masked row gets uniform weights instead of zeros; the contract asks for -inf.",
         expect=[r"finfo|large negative|finite|-1e9", r"-inf|infinity"],
         bodies={"apply_mask": """
        return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    """}),
    dict(kind="wrong", name="apply_additive_float32",
         mistake="apply_mask adds torch.log(mask.float()) (0 or -inf), whose float32 dtype promotes float16/bfloat16 scores to float32",
         ideal="The additive mask log(mask.float()) is float32, and adding it to float16 or bfloat16 scores type-promotes the result to float32, so the dtype is not kept; cast the mask to scores.dtype (or use masked_fill).",
         expect=[r"float32|\.float\(\)|promot", r"dtype|float16|bfloat16|half"],
         bodies={"apply_mask": """
        return scores + torch.log(mask.float())
    """}),
    dict(kind="wrong", name="padding_key_axis_last",
         mistake="padding_mask adds the query axis at the end with unsqueeze(-1), giving (B, L, 1) instead of (B, 1, L)",
         ideal="unsqueeze(-1) puts the new axis last, so the mask is (B, L, 1): it then broadcasts along the keys and masks whole query rows instead of key columns; the query dim goes in the middle, unsqueeze(1) -> (B, 1, L).",
         expect=[r"unsqueeze|\(B, ?L, ?1\)|axis|dim", r"\(B, ?1, ?L\)|quer|keys"],
         bodies={"padding_mask": """
        j = torch.arange(L, device=lengths.device)
        return (j < lengths[:, None]).unsqueeze(-1)
    """}),
    dict(kind="wrong", name="padding_width_from_longest",
         mistake="padding_mask builds the key axis with torch.arange(lengths.max()), so it is as wide as the longest sequence, not L",
         ideal="arange(lengths.max()) makes the mask as wide as the longest real sequence, but the batch is padded to L, which may be longer (the docstring says so); the result is (B, 1, max length) and no longer broadcasts to scores (B, L_q, L).",
         expect=[r"max|longest", r"\bL\b|width|padded length|shape"],
         bodies={"padding_mask": """
        n = int(lengths.max())
        j = torch.arange(n, device=lengths.device)
        return (j < lengths[:, None])[:, None, :]
    """}),
    dict(kind="honest", name="arange_compare_where",
         method="causal mask by comparing row and column aranges; torch.where with a -inf scalar tensor; padding by broadcasting lengths.view(-1, 1, 1)",
         bodies={"causal_mask": """
        idx = torch.arange(L, device=device)
        return idx.view(L, 1) >= idx.view(1, L)
    """, "apply_mask": """
        neg = torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device)
        return torch.where(mask, scores, neg)
    """, "padding_mask": """
        keys = torch.arange(L, device=lengths.device).view(1, 1, L)
        return keys < lengths.view(-1, 1, 1)
    """}),
    dict(kind="honest", name="not_triu_clone_fill",
         method="causal mask as the negation of the strict upper triangle; apply_mask clones then masked_fill_ on the copy; padding via an additive cumulative comparison (ge/logical_not)",
         bodies={"causal_mask": """
        upper = torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)
        return ~upper
    """, "apply_mask": """
        out = scores.clone()
        out.masked_fill_(mask.logical_not(), float("-inf"))
        return out
    """, "padding_mask": """
        pos = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)
        return torch.logical_not(pos.ge(lengths.unsqueeze(1))).unsqueeze(1)
    """}),
]
