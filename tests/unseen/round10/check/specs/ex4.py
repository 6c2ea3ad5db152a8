CORRECT = {
    "causal_mask": """
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
    """,
    "apply_mask": """
        return scores.masked_fill(~mask, float("-inf"))
    """,
    "padding_mask": """
        L_idx = torch.arange(L, device=lengths.device)  # (L,)
        return (L_idx[None, :] < lengths[:, None]).unsqueeze(1)  # (B, 1, L)
    """,
}

WRONG = [
    dict(
        name="wrong_triu",
        mistake="causal_mask uses torch.triu: True on and ABOVE the diagonal, so every query sees the future and not the past",
        ideal="the mask is upper-triangular (torch.triu) instead of lower (torch.tril): row i allows keys i..L-1, the future, and hides the past; only the diagonal is right",
        expect=r"triu|tril|upper|lower|above|below|future|transpos|wrong (triangle|side)|flipped",
        reject=[r"dtype", r"device", r"in.?place", r"padding"],
    ),
    dict(
        name="wrong_strict_diagonal",
        mistake="causal_mask uses torch.tril(..., diagonal=-1): the diagonal is False, so token i cannot read itself and row 0 is fully masked",
        ideal="diagonal=-1 makes the mask strictly lower-triangular: query i may not see key i (itself), and query 0 sees nothing at all (a fully masked row, NaN after softmax); the diagonal must be True",
        expect=r"diagonal|itself|self|strict|row 0|first (row|token|query)|off.?by.?one|diagonal=-1|\bi\b.{0,20}\bi\b",
        reject=[r"triu|upper", r"dtype", r"device", r"in.?place"],
    ),
    dict(
        name="wrong_float_mask",
        mistake="causal_mask builds torch.tril(torch.ones(L, L)) without dtype=torch.bool: a float 0/1 mask, not bool (and ~mask then fails)",
        ideal="the causal mask is float32 (torch.ones defaults to float) instead of bool: the pattern is right, but ~mask raises on a float tensor and masked_fill refuses a float mask; pass dtype=torch.bool",
        expect=r"bool|dtype|float|boolean|torch\.ones",
        reject=[r"triu|upper", r"diagonal", r"device", r"in.?place"],
    ),
    dict(
        name="wrong_inplace_masked_fill",
        mistake="apply_mask uses masked_fill_ on scores (in place) and returns it, changing the caller's scores",
        ideal="masked_fill_ writes -inf into the caller's scores tensor (it is not left untouched and the result is not a new tensor); on a leaf that requires grad it raises; use masked_fill",
        expect=r"in.?place|masked_fill_|modif|mutat|overwrit|chang(e|es|ed) (the )?(input|caller|scores)|untouched|new tensor|same (tensor|object)",
        reject=[r"triu|upper", r"invert|wrong way round|opposite", r"dtype", r"device"],
    ),
    dict(
        name="wrong_mask_inverted",
        mistake="apply_mask fills -inf where the mask is True (masked_fill(mask, -inf)), forgetting the ~: hides exactly the keys the query may see",
        ideal="apply_mask puts -inf where the mask is True instead of False (missing ~ / logical_not): the allowed keys are hidden and the forbidden ones kept",
        expect=r"invert|~|logical_not|negat|wrong way|opposite|revers|where (the )?mask is true|true.{0,40}false|flipped|swap",
        reject=[r"triu|upper", r"in.?place", r"dtype", r"device"],
    ),
    dict(
        name="wrong_large_negative",
        mistake="apply_mask writes -1e9 (torch.where(mask, scores, -1e9)) instead of -inf",
        ideal="apply_mask uses a large finite negative (-1e9) rather than -inf: hidden scores are not -inf, a fully masked row becomes uniform weights instead of zeros after softmax, and in float16 -1e9 overflows anyway; use float('-inf')",
        expect=r"1e9|1e-?9|finite|large negative|big negative|very negative|uniform|instead of -?inf|not -?inf|rather than -?inf",
        reject=[r"triu|upper", r"in.?place", r"invert|opposite"],
    ),
    dict(
        name="wrong_padding_le",
        mistake="padding_mask compares j <= lengths[b] instead of j < lengths[b]: one padding key too many is visible",
        ideal="off by one: positions count from 0, so sequence b's real keys are 0..lengths[b]-1; `<=` also admits key lengths[b] (the first padding token), and a length 0 sequence sees key 0",
        expect=r"off.?by.?one|<=|<\b|one (too many|extra)|lengths?\[b\]|first padding|boundary|strict|count(s)? from 0|inclusive",
        reject=[r"triu|upper", r"dtype", r"device", r"in.?place", r"shape|unsqueeze|query ax"],
    ),
    dict(
        name="wrong_padding_no_device",
        mistake="padding_mask makes torch.arange(L) without device=, so lengths on a GPU (or another device) give a device-mismatch error",
        ideal="torch.arange(L) is created on the CPU whatever lengths' device, so with CUDA lengths the comparison fails (or the mask lands on the wrong device); use torch.arange(L, device=lengths.device)",
        expect=r"device|cpu|cuda|gpu|arange",
        reject=[r"off.?by.?one|<=", r"triu|upper", r"dtype|float", r"in.?place"],
    ),
]

BODIES = {
    "wrong_triu": {"causal_mask": """
        return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))
    """},
    "wrong_strict_diagonal": {"causal_mask": """
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device), diagonal=-1)
    """},
    "wrong_float_mask": {"causal_mask": """
        return torch.tril(torch.ones(L, L, device=device))
    """},
    "wrong_inplace_masked_fill": {"apply_mask": """
        scores.masked_fill_(~mask, float("-inf"))
        return scores
    """},
    "wrong_mask_inverted": {"apply_mask": """
        return scores.masked_fill(mask, float("-inf"))
    """},
    "wrong_large_negative": {"apply_mask": """
        return torch.where(mask, scores, -1e9)  # a very large negative number: e^-1e9 = 0
    """},
    "wrong_padding_le": {"padding_mask": """
        L_idx = torch.arange(L, device=lengths.device)  # (L,)
        return (L_idx[None, :] <= lengths[:, None]).unsqueeze(1)  # (B, 1, L)
    """},
    "wrong_padding_no_device": {"padding_mask": """
        L_idx = torch.arange(L)  # (L,)
        return (L_idx[None, :] < lengths[:, None]).unsqueeze(1)  # (B, 1, L)
    """},
}

HONEST = [
    dict(
        name="honest_arange_compare",
        method="builds both masks by comparing position indices (key <= query, key < length) and hides keys with torch.where",
        bodies={
            "causal_mask": """
                pos = torch.arange(L, device=device)
                return pos[None, :] <= pos[:, None]  # key j <= query i
            """,
            "apply_mask": """
                neg_inf = torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device)
                return torch.where(mask, scores, neg_inf)
            """,
            "padding_mask": """
                B = lengths.shape[0]
                keys = torch.arange(L, device=lengths.device).expand(B, L)
                return (keys < lengths.unsqueeze(-1))[:, None, :]
            """,
        },
    ),
    dict(
        name="honest_triu_complement_loop",
        method="causal mask as the complement of the strict upper triangle; masked_fill with logical_not; padding mask filled row by row in a loop",
        helpers="""
            import math
        """,
        bodies={
            "causal_mask": """
                future = torch.ones(L, L, dtype=torch.bool, device=device).triu(diagonal=1)
                return ~future
            """,
            "apply_mask": """
                return scores.masked_fill(mask.logical_not(), -math.inf)
            """,
            "padding_mask": """
                B = lengths.size(0)
                out = torch.zeros(B, 1, L, dtype=torch.bool, device=lengths.device)
                keys = torch.arange(L, device=lengths.device)
                for b in range(B):
                    out[b, 0] = keys < lengths[b]  # row b: its first lengths[b] keys are real
                return out
            """,
        },
    ),
]
