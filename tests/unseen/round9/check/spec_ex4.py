OK_CAUSAL = """
return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
"""
OK_APPLY = """
return scores.masked_fill(~mask, float("-inf"))
"""
OK_PAD = """
pos = torch.arange(L, device=lengths.device)
return (pos[None, :] < lengths[:, None]).unsqueeze(1)
"""

VARIANTS = [
    dict(
        name="triu_true_masked", kind="wrong",
        mistake="causal_mask returns triu(ones, diagonal=1), PyTorch's nn.Transformer convention where True means 'masked': True above the diagonal, False on and below",
        ideal="In this kit True = may attend. triu(diagonal=1) marks the future as True, i.e. the convention of nn.Transformer's masks, the exact opposite.\nUse torch.tril(torch.ones(L, L, dtype=torch.bool)): True on and below the diagonal.",
        expect=[r"invert|opposite|revers|flip|negat|convention|True (=|means|for) (may attend|allowed|masked)|triu|tril|upper|lower|above|below"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"causal_mask": """
            return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=1)
            """, "apply_mask": OK_APPLY, "padding_mask": OK_PAD},
    ),
    dict(
        name="diagonal_excluded", kind="wrong",
        mistake="causal_mask uses tril(..., diagonal=-1), which hides the diagonal: a token cannot read itself and row 0 is entirely False",
        ideal="Token i may read tokens 0..i, itself included; diagonal=-1 forbids the diagonal and leaves query 0 with no key at all (NaN after softmax).\nUse the default diagonal=0.",
        expect=[r"diagonal|itself|self|row 0|first (row|token|query)|off[- ]by[- ]one|0\.\.i"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"causal_mask": """
            return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
            """, "apply_mask": OK_APPLY, "padding_mask": OK_PAD},
    ),
    dict(
        name="causal_ignores_device", kind="wrong",
        mistake="causal_mask ignores its device argument and always builds the mask on the CPU",
        ideal="The mask must be made on `device` (torch.ones(..., device=device)); a CPU mask cannot be combined with CUDA scores.\nPass device= to torch.ones (or to .to(device)).",
        expect=[r"device|cpu|cuda|gpu"],
        reject=[r"\bdtype\b", r"diagonal"],
        bodies={"causal_mask": """
            mask = torch.ones(L, L, dtype=torch.bool)
            return torch.tril(mask)
            """, "apply_mask": OK_APPLY, "padding_mask": OK_PAD},
    ),
    dict(
        name="apply_inplace", kind="wrong",
        mistake="apply_mask uses masked_fill_ (in place) and returns the input, so the caller's scores are overwritten with -inf",
        ideal="masked_fill_ edits `scores` itself: the caller's scores change (and autograd may fail on tensors it saved).\nUse the out-of-place scores.masked_fill(~mask, float('-inf')), which returns a new tensor.",
        expect=[r"in[- ]?place|masked_fill_|modif|mutat|overwr|chang\w* (the )?(input|caller|scores)|new tensor|underscore"],
        reject=[r"\bdtype\b", r"diagonal"],
        bodies={"causal_mask": OK_CAUSAL, "apply_mask": """
            scores.masked_fill_(~mask, float("-inf"))
            return scores
            """, "padding_mask": OK_PAD},
    ),
    dict(
        name="additive_minus_1e9", kind="wrong",
        mistake="apply_mask adds -1e9 where the mask is False (a Hugging Face style additive mask) instead of setting -inf",
        ideal="Masked scores must be exactly -inf, not scores - 1e9: a fully masked row stays finite and softmax spreads weight uniformly\ninstead of giving zeros (and -1e9 overflows in float16). Use masked_fill(~mask, float('-inf')).",
        expect=[r"-?\binf|infinit|1e9|1e\+?09|additive|finite|large negative"],
        reject=[r"in[- ]?place", r"diagonal"],
        bodies={"causal_mask": OK_CAUSAL, "apply_mask": """
            return scores + (~mask).to(scores.dtype) * -1e9
            """, "padding_mask": OK_PAD},
    ),
    dict(
        name="fill_tensor_no_dtype", kind="wrong",
        mistake="apply_mask builds its -inf tensor with torch.full(scores.shape, -inf) without dtype= or device=, so float16 scores come back float32 and CUDA scores fail",
        ideal="torch.full without dtype/device makes a float32 CPU tensor; torch.where then promotes half precision to float32 and cannot mix devices.\nUse torch.full_like(scores, float('-inf')) or scores.masked_fill(~mask, float('-inf')).",
        expect=[r"dtype|device|float32|float16|half|promot|full_like|cpu|cuda"],
        reject=[r"in[- ]?place", r"diagonal"],
        bodies={"causal_mask": OK_CAUSAL, "apply_mask": """
            neg_inf = torch.full(scores.shape, float("-inf"))
            return torch.where(mask, scores, neg_inf)
            """, "padding_mask": OK_PAD},
    ),
    dict(
        name="padding_off_by_one", kind="wrong",
        mistake="padding_mask uses j <= lengths[b] instead of j < lengths[b], so it also lets queries read the first padding key",
        ideal="Sequence b has real tokens at positions 0..lengths[b]-1; position lengths[b] is already padding.\nCompare with <, not <=.",
        expect=[r"off[- ]by[- ]one|<=|strict|less than|lengths?\[b\] ?- ?1|first pad|one (extra|too many)|boundar"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"causal_mask": OK_CAUSAL, "apply_mask": OK_APPLY, "padding_mask": """
            pos = torch.arange(L, device=lengths.device)
            return (pos[None, :] <= lengths[:, None]).unsqueeze(1)
            """},
    ),
    dict(
        name="padding_query_axis", kind="wrong",
        mistake="padding_mask returns (B, L, 1) instead of (B, 1, L), so it broadcasts over the keys and masks padded QUERIES instead of padded keys",
        ideal="The 1 must be the query axis: [b, 0, j] says whether key j is real, and (B, 1, L) broadcasts across the queries.\nUse unsqueeze(1) (or [:, None, :]), not unsqueeze(-1).",
        expect=[r"\(B, ?1, ?L\)|\(B, ?L, ?1\)|shape|axis|unsqueeze|quer(y|ies)|keys? (axis|dim)|broadcast|transpos"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"causal_mask": OK_CAUSAL, "apply_mask": OK_APPLY, "padding_mask": """
            pos = torch.arange(L, device=lengths.device)
            return (pos[None, :] < lengths[:, None]).unsqueeze(-1)
            """},
    ),
    dict(
        name="arange_compare", kind="honest",
        method="causal mask from comparing arange row and column indices; apply_mask with torch.where and a 0-dim -inf of scores' dtype; padding via expand",
        bodies={"causal_mask": """
            i = torch.arange(L, device=device)
            return i[:, None] >= i[None, :]
            """, "apply_mask": """
            neg_inf = scores.new_full((), float("-inf"))
            return torch.where(mask, scores, neg_inf)
            """, "padding_mask": """
            B = lengths.shape[0]
            pos = torch.arange(L, device=lengths.device).expand(B, L)
            return (pos < lengths.unsqueeze(1))[:, None, :]
            """},
    ),
    dict(
        name="additive_inf_bias", kind="honest",
        method="causal mask as NOT triu(diagonal=1); apply_mask adds a bias that is 0 where allowed and -inf where not; padding via lengths.unsqueeze(-1) > arange",
        bodies={"causal_mask": """
            future = torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)
            return ~future
            """, "apply_mask": """
            bias = torch.zeros_like(scores).masked_fill(mask.logical_not(), float("-inf"))
            return scores + bias
            """, "padding_mask": """
            real = lengths.unsqueeze(-1) > torch.arange(L, device=lengths.device)
            return real.unsqueeze(-2)
            """},
    ),
]
