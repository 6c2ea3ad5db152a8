import textwrap

CORRECT = {
    "repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
        return torch.cat([first, first], dim=1)  # (batch, 2 * seq_len)
    """,
    "previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) < 2:
            raise ValueError("previous_token_score needs L >= 2")
        prev = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [b, h, i-1] = pattern[b, h, i, i-1]
        return prev.mean(dim=(0, 2))
    """,
    "induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) != 2 * seq_len:
            raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
        return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len - 1 (first half)
    """,
    "find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            seq_len = pattern.size(-1) // 2
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, seq_len)
            for h in range(pattern.size(1)):
                if prev[h].item() > threshold:
                    found["previous_token"].append((layer, h))
                if ind[h].item() > threshold:
                    found["induction"].append((layer, h))
        return found
    """,
}

P = textwrap.dedent(CORRECT["previous_token_score"])
I = textwrap.dedent(CORRECT["induction_score"])
FH = textwrap.dedent(CORRECT["find_heads"])


def rep(src, old, new):
    assert old in src, old
    return src.replace(old, new)


WRONG = [
    dict(
        name="wrong_randint_high_exclusive",
        mistake="repeated_tokens draws torch.randint(0, vocab_size - 1, ...), treating randint's upper bound as inclusive: token vocab_size - 1 never appears (vocab_size = 1 crashes)",
        ideal="torch.randint's high is already exclusive, so vocab_size - 1 excludes the last token id: tokens are drawn from 0..vocab_size-2, not 0..vocab_size-1, and vocab_size = 1 raises; use torch.randint(vocab_size, ...)",
        expect=r"vocab_size ?- ?1|exclusive|inclusive|upper bound|high|off.?by.?one|last token|never (drawn|appears|sampled)|range|vocab_size ?= ?1",
        reject=[r"generator|seed", r"diagonal|offset", r"threshold", r"dtype"],
    ),
    dict(
        name="wrong_ignores_generator",
        mistake="repeated_tokens does not pass generator= to torch.randint, so the same seeded generator does not give the same tokens",
        ideal="the generator argument is ignored: tokens come from torch's global RNG, so a seeded torch.Generator does not reproduce them (and the global RNG state is consumed); pass generator=generator",
        expect=r"generator|seed|reproduc|determinis|global rng|rng|random state",
        reject=[r"vocab_size ?- ?1|exclusive|off.?by.?one", r"diagonal|offset", r"threshold", r"dtype"],
    ),
    dict(
        name="wrong_offset_sign",
        mistake="previous_token_score reads diagonal offset=+1 (pattern[i, i+1], the NEXT token) instead of offset=-1",
        ideal="the previous token of query i is key i-1, below the diagonal (offset=-1); offset=+1 reads key i+1, the next token, which a causal head never sees, so true previous-token heads score 0",
        expect=r"offset ?=? ?\+?1\b|sign|above|below|next token|following token|sub.?diagonal|super.?diagonal|i ?\+ ?1|wrong diagonal|offset=-1",
        reject=[r"generator|seed", r"threshold|>=", r"dtype", r"mean.{0,30}(L\b|divid)"],
    ),
    dict(
        name="wrong_mean_divides_by_L",
        mistake="previous_token_score sums the sub-diagonal and divides by B * L instead of B * (L - 1), so query 0 (which has no previous token) is counted",
        ideal="the average divides by L queries per sequence, but only queries 1..L-1 are counted (query 0 has no previous token): every score is too small by a factor (L-1)/L; a perfect previous-token head scores (L-1)/L instead of 1",
        expect=r"L ?- ?1|query 0|first (query|token|position)|divid|denominator|mean|average|count|off.?by.?one|\(L-1\)/L",
        reject=[r"generator|seed", r"offset|\+1|next token", r"threshold|>=", r"dtype"],
    ),
    dict(
        name="wrong_score_dtype_loop",
        mistake="previous_token_score accumulates into torch.zeros(H) made without dtype=/device=, so the scores are float32 on the CPU whatever the pattern",
        ideal="the result tensor is created with torch.zeros(H) (float32, CPU): float64 or float16 patterns give float32 scores and CUDA patterns give CPU scores; create it with the pattern's dtype and device (or just take the mean)",
        expect=r"dtype|float32|float64|double|device|cpu|cuda|zeros|precision",
        reject=[r"generator|seed", r"offset|\+1|next token", r"threshold|>=", r"off.?by.?one"],
    ),
    dict(
        name="wrong_induction_includes_first",
        mistake="induction_score averages the whole diagonal at offset 1 - seq_len, including its first entry, query seq_len - 1 (in the first half)",
        ideal="the stripe at offset 1 - seq_len starts at query seq_len - 1, which is in the first half (no earlier copy); it must be left out: the mean is over seq_len + 1 cells instead of the seq_len second-half queries",
        expect=r"first (entry|element|cell|query)|seq_len ?- ?1|first half|leave (it )?out|left out|\[1:\]|off.?by.?one|one (too many|extra)|second half|include",
        reject=[r"generator|seed", r"threshold|>=", r"dtype", r"previous_token_score"],
    ),
    dict(
        name="wrong_induction_no_shape_check",
        mistake="induction_score does not raise ValueError when L != 2 * seq_len (it only checks 4-D and square), so find_heads does not reject an odd L either",
        ideal="the docstring requires ValueError if L != 2 * seq_len; it is missing, so a wrong seq_len silently gives a score of the wrong stripe and find_heads accepts odd L instead of raising",
        expect=r"valueerror|rais|2 ?\* ?seq_len|odd|check|validat|L ?!= ?2|shape",
        reject=[r"generator|seed", r"threshold|>=", r"dtype", r"offset|\+1|next token"],
    ),
    dict(
        name="wrong_threshold_ge",
        mistake="find_heads keeps heads whose score is >= threshold; the docstring says strictly above (score > threshold)",
        ideal="find_heads uses >= where the contract is score > threshold: a head whose score equals the threshold exactly is wrongly listed",
        expect=r">=|>\b|strict|equal(s|ity)?|threshold|exactly|boundary|inclusive",
        reject=[r"generator|seed", r"offset|next token", r"dtype", r"valueerror"],
    ),
]

BODIES = {
    "wrong_randint_high_exclusive": {"repeated_tokens": """
        first = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)  # 0 .. vocab_size - 1
        return torch.cat([first, first], dim=1)
    """},
    "wrong_ignores_generator": {"repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len))
        return torch.cat([first, first], dim=1)
    """},
    "wrong_offset_sign": {"previous_token_score": rep(P, "offset=-1", "offset=1")},
    "wrong_mean_divides_by_L": {"previous_token_score": rep(
        P, "return prev.mean(dim=(0, 2))", "B, H, L, _ = pattern.shape\nreturn prev.sum(dim=(0, 2)) / (B * L)")},
    "wrong_score_dtype_loop": {"previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) < 2:
            raise ValueError("previous_token_score needs L >= 2")
        B, H, L, _ = pattern.shape
        scores = torch.zeros(H)
        for h in range(H):
            total = 0.0
            for i in range(1, L):
                total = total + pattern[:, h, i, i - 1].sum()
            scores[h] = total / (B * (L - 1))
        return scores
    """},
    "wrong_induction_includes_first": {"induction_score": rep(
        I, "return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len - 1 (first half)",
        "return stripe.mean(dim=(0, 2))")},
    "wrong_induction_no_shape_check": {"induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
        return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len - 1 (first half)
    """},
    "wrong_threshold_ge": {"find_heads": FH.replace("> threshold", ">= threshold")},
}

HONEST = [
    dict(
        name="honest_fancy_index",
        method="repeated_tokens with Tensor.repeat(1, 2); scores by advanced indexing of the (i, i-1) and (i, i-seq_len+1) cells; find_heads with torch.nonzero",
        bodies={
            "repeated_tokens": """
                half = torch.randint(vocab_size, (batch, seq_len), generator=generator)
                return half.repeat(1, 2)  # tiles along dim 1: the same tokens again, same order
            """,
            "previous_token_score": """
                if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] < 2:
                    raise ValueError("pattern must be (B, H, L, L) with L >= 2")
                i = torch.arange(1, pattern.shape[-1], device=pattern.device)
                return pattern[:, :, i, i - 1].mean(dim=(0, 2))
            """,
            "induction_score": """
                if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] != 2 * seq_len:
                    raise ValueError("pattern must be (B, H, 2*seq_len, 2*seq_len)")
                i = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
                return pattern[:, :, i, i - seq_len + 1].mean(dim=(0, 2))
            """,
            "find_heads": """
                result = {"previous_token": [], "induction": []}
                for layer, pattern in enumerate(patterns):
                    L = pattern.shape[-1]
                    scores = {"previous_token": previous_token_score(pattern), "induction": induction_score(pattern, L // 2)}
                    for key in ("previous_token", "induction"):
                        for h in torch.nonzero(scores[key] > threshold).flatten().tolist():
                            result[key].append((layer, int(h)))
                return result
            """,
        },
    ),
    dict(
        name="honest_selector_matrix",
        method="stack-and-flatten for the repeat; each score as the masked sum of the pattern with a 0/1 selector matrix divided by the number of cells; find_heads via zip of score lists",
        bodies={
            "repeated_tokens": """
                tokens = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
                return torch.stack([tokens, tokens], dim=1).flatten(1)  # (batch, 2, seq_len) -> (batch, 2*seq_len)
            """,
            "previous_token_score": """
                if pattern.dim() != 4:
                    raise ValueError("pattern must be 4-D (B, H, L, L)")
                B, H, L, L2 = pattern.shape
                if L != L2 or L < 2:
                    raise ValueError("pattern's last two dims must be equal and L >= 2")
                sel = torch.ones(L - 1, dtype=pattern.dtype, device=pattern.device).diag(-1)  # 1 at (i, i-1)
                return (pattern * sel).sum(dim=(0, 2, 3)) / (B * (L - 1))
            """,
            "induction_score": """
                if pattern.dim() != 4:
                    raise ValueError("pattern must be 4-D (B, H, L, L)")
                B, H, L, L2 = pattern.shape
                if L != L2 or L != 2 * seq_len:
                    raise ValueError("pattern must be (B, H, 2*seq_len, 2*seq_len)")
                sel = torch.zeros(L, L, dtype=pattern.dtype, device=pattern.device)
                for i in range(seq_len, L):
                    sel[i, i - seq_len + 1] = 1
                return (pattern * sel).sum(dim=(0, 2, 3)) / (B * seq_len)
            """,
            "find_heads": """
                prev_heads, ind_heads = [], []
                for layer, pattern in enumerate(patterns):
                    L = pattern.shape[-1]
                    prev = previous_token_score(pattern).tolist()
                    ind = induction_score(pattern, L // 2).tolist()
                    prev_heads += [(layer, h) for h, s in enumerate(prev) if s > threshold]
                    ind_heads += [(layer, h) for h, s in enumerate(ind) if s > threshold]
                return {"previous_token": prev_heads, "induction": ind_heads}
            """,
        },
    ),
]
