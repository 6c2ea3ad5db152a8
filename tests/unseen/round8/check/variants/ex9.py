_CHECK = """
        if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
"""
DEFAULT = {
    "repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
        return torch.cat([first, first], dim=1)
    """,
    "previous_token_score": _CHECK + """
        if pattern.shape[-1] < 2:
            raise ValueError("previous_token_score needs L >= 2")
        return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))
    """,
    "induction_score": _CHECK + """
        if pattern.shape[-1] != 2 * seq_len:
            raise ValueError(f"L = {pattern.shape[-1]} is not 2 * seq_len = {2 * seq_len}")
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:]
        return stripe.mean(dim=(0, 2))
    """,
    "find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.shape[-1]
            if L % 2:
                raise ValueError(f"layer {layer}: odd L = {L}")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for h in range(pattern.shape[1]):
                if prev[h] > threshold:
                    found["previous_token"].append((layer, h))
                if ind[h] > threshold:
                    found["induction"].append((layer, h))
        return found
    """,
}

VARIANTS = [
    dict(kind="wrong", name="tokens_repeat_interleave",
         mistake="repeated_tokens doubles the sequence with repeat_interleave(2, dim=1), giving 7, 7, 2, 2, ... instead of the sequence twice",
         ideal="repeat_interleave repeats each token next to itself ([7, 7, 2, 2, 9, 9, ...]), but an induction test needs the whole sequence twice in order ([7, 2, 9, 4, 7, 2, 9, 4]); use torch.cat([t, t], dim=1) or t.repeat(1, 2).",
         expect=[r"repeat_interleave|next to itself|7, ?7", r"twice|whole sequence|cat|repeat\(1, ?2\)|order"],
         bodies={"repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
        return first.repeat_interleave(2, dim=1)
    """}),
    dict(kind="wrong", name="randint_high_off_by_one",
         mistake="repeated_tokens draws torch.randint(0, vocab_size - 1, ...), whose upper bound is already exclusive, so token vocab_size - 1 never appears (and vocab_size = 1 fails)",
         ideal="torch.randint's high bound is exclusive, so randint(0, vocab_size - 1) only draws 0 .. vocab_size - 2: the last token id never appears, and with vocab_size = 1 it raises (low >= high); use randint(vocab_size, ...) or high=vocab_size.",
         expect=[r"exclusive|off[- ]by[- ]one|vocab_size ?- ?1|never", r"randint|high|upper bound|last token"],
         bodies={"repeated_tokens": """
        first = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)
        return torch.cat([first, first], dim=1)
    """}),
    dict(kind="wrong", name="generator_not_passed",
         mistake="repeated_tokens never passes the generator to torch.randint, so it always draws from the global RNG and the same seed does not give the same tokens",
         ideal="The generator argument is ignored: torch.randint draws from torch's global generator, so two generators with the same seed give different tokens (not reproducible); pass generator=generator.",
         expect=[r"generator", r"seed|reproduc|global|ignor"],
         bodies={"repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len))
        return torch.cat([first, first], dim=1)
    """}),
    dict(kind="wrong", name="query0_wraps_around",
         mistake="previous_token_score averages pattern[:, :, i, i - 1] over every query i = 0 .. L-1, so query 0 reads pattern[..., 0, -1], the LAST key, by Python's negative indexing",
         ideal="The loop starts at i = 0, and pattern[:, :, 0, -1] is not 'no previous token' but the last key (negative indices wrap around), so a wrong cell is averaged in and the mean is over L instead of L - 1 queries; start at i = 1.",
         expect=[r"query 0|i ?= ?0|wrap|negative ind", r"last key|-1|L ?- ?1|start at"],
         bodies={"previous_token_score": _CHECK + """
        if pattern.shape[-1] < 2:
            raise ValueError("previous_token_score needs L >= 2")
        L = pattern.shape[-1]
        cells = torch.stack([pattern[:, :, i, i - 1] for i in range(L)], dim=-1)  # (B, H, L)
        return cells.mean(dim=(0, 2))
    """}),
    dict(kind="wrong", name="no_short_pattern_check",
         mistake="previous_token_score checks the shape but not L >= 2, so an L = 1 pattern returns NaN (a mean of nothing) instead of raising ValueError",
         ideal="With L = 1 there is no query with a previous token, so the sub-diagonal is empty and its mean is NaN; the contract says to raise ValueError when L < 2, and this code never checks it.",
         expect=[r"L ?< ?2|L ?= ?1|too short|empty", r"ValueError|NaN"],
         bodies={"previous_token_score": _CHECK + """
        return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))
    """}),
    dict(kind="wrong", name="duplicate_token_stripe",
         mistake="induction_score reads key i - seq_len (the earlier copy of the SAME token, a duplicate-token head) instead of key i - seq_len + 1 (the token after it)",
         ideal="An induction head attends to the token AFTER the earlier occurrence, key i - seq_len + 1; this code measures key i - seq_len, the earlier copy of the current token itself (a duplicate-token head), so its stripe is one column off (offset -seq_len instead of 1 - seq_len).",
         expect=[r"i ?- ?seq_len|duplicate|same token|one column|offset", r"\+ ?1|after|1 ?- ?seq_len"],
         bodies={"induction_score": _CHECK + """
        if pattern.shape[-1] != 2 * seq_len:
            raise ValueError(f"L = {pattern.shape[-1]} is not 2 * seq_len = {2 * seq_len}")
        return pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1).mean(dim=(0, 2))
    """}),
    dict(kind="wrong", name="threshold_inclusive",
         mistake="find_heads keeps heads whose score is >= threshold, but the contract says strictly above (score > threshold)",
         ideal="A head whose score equals the threshold exactly is counted because of >=; the contract counts a head only when score > threshold (strictly above), so boundary heads are wrongly listed.",
         expect=[r">=|inclusive|strictly|equal"],
         bodies={"find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.shape[-1]
            if L % 2:
                raise ValueError(f"layer {layer}: odd L = {L}")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for h in range(pattern.shape[1]):
                if prev[h] >= threshold:
                    found["previous_token"].append((layer, h))
                if ind[h] >= threshold:
                    found["induction"].append((layer, h))
        return found
    """}),
    dict(kind="wrong", name="tensor_head_indices",
         mistake="find_heads takes the head numbers from torch.nonzero, so each pair is (int, 0-d tensor) instead of (int, int)",
         ideal="Iterating over torch.nonzero(scores > threshold) yields tensors, so the head in each (layer, head) pair is a tensor, not the int the contract asks for (equality tests and JSON output then break); convert with int() or .tolist().",
         expect=[r"tensor", r"\bint\b|\.tolist|item"],
         bodies={"find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.shape[-1]
            if L % 2:
                raise ValueError(f"layer {layer}: odd L = {L}")
            for key, scores in (("previous_token", previous_token_score(pattern)),
                                ("induction", induction_score(pattern, L // 2))):
                for h in torch.nonzero(scores > threshold).flatten():
                    found[key].append((layer, h))
        return found
    """}),
    dict(kind="honest", name="advanced_indexing",
         method="repeated tokens with Tensor.repeat(1, 2); scores by advanced indexing with aranges of the query rows and key columns; find_heads via .tolist()",
         bodies={"repeated_tokens": """
        half = torch.randint(0, vocab_size, size=(batch, seq_len), generator=generator, dtype=torch.long)
        return half.repeat(1, 2)
    """, "previous_token_score": """
        if pattern.ndim != 4 or pattern.size(-2) != pattern.size(-1) or pattern.size(-1) < 2:
            raise ValueError("pattern must be (B, H, L, L) with L >= 2")
        rows = torch.arange(1, pattern.size(-1), device=pattern.device)
        return pattern[:, :, rows, rows - 1].mean(dim=2).mean(dim=0)
    """, "induction_score": """
        if pattern.ndim != 4 or pattern.size(-2) != pattern.size(-1) or pattern.size(-1) != 2 * seq_len:
            raise ValueError("pattern must be (B, H, 2*seq_len, 2*seq_len)")
        rows = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
        return pattern[:, :, rows, rows - seq_len + 1].mean(dim=2).mean(dim=0)
    """, "find_heads": """
        prev, ind = [], []
        for layer, pattern in enumerate(patterns):
            p_scores = previous_token_score(pattern).tolist()
            i_scores = induction_score(pattern, pattern.shape[-1] // 2).tolist()
            prev += [(layer, h) for h, s in enumerate(p_scores) if s > threshold]
            ind += [(layer, h) for h, s in enumerate(i_scores) if s > threshold]
        return {"previous_token": prev, "induction": ind}
    """}),
    dict(kind="honest", name="selector_masks",
         method="scores as sums over a boolean selector of the wanted cells (differences of ones().tril bands) divided by the count; tokens via expand of a new axis; head lists from nonzero().tolist()",
         bodies={"repeated_tokens": """
        t = torch.randint(vocab_size, (batch, 1, seq_len), generator=generator)
        return t.expand(batch, 2, seq_len).reshape(batch, 2 * seq_len)
    """, "previous_token_score": """
        if pattern.dim() != 4:
            raise ValueError("pattern must be 4-D")
        L = pattern.shape[-1]
        if pattern.shape[-2] != L:
            raise ValueError("pattern's last two dims differ")
        if L < 2:
            raise ValueError("L must be at least 2")
        ones = torch.ones(L, L, dtype=torch.bool, device=pattern.device)
        sel = ones.tril(-1) & ~ones.tril(-2)  # the cells (i, i - 1)
        picked = torch.where(sel, pattern, torch.zeros((), dtype=pattern.dtype, device=pattern.device))
        return picked.sum(dim=(-1, -2)).sum(dim=0) / (pattern.shape[0] * (L - 1))
    """, "induction_score": """
        if pattern.dim() != 4:
            raise ValueError("pattern must be 4-D")
        L = pattern.shape[-1]
        if pattern.shape[-2] != L or L != 2 * seq_len:
            raise ValueError("pattern must be (B, H, 2*seq_len, 2*seq_len)")
        ones = torch.ones(L, L, dtype=torch.bool, device=pattern.device)
        stripe = ones.tril(1 - seq_len) & ~ones.tril(-seq_len)  # cells (i, i - seq_len + 1)
        second_half = torch.arange(L, device=pattern.device) >= seq_len
        sel = stripe & second_half[:, None]
        picked = torch.where(sel, pattern, torch.zeros((), dtype=pattern.dtype, device=pattern.device))
        return picked.sum(dim=(-1, -2)).sum(dim=0) / (pattern.shape[0] * seq_len)
    """, "find_heads": """
        result = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.shape[-1]
            if L % 2 == 1:
                raise ValueError("odd L: not a sequence repeated twice")
            for name, score in (("previous_token", previous_token_score(pattern)),
                                ("induction", induction_score(pattern, L // 2))):
                for h in (score > threshold).nonzero().flatten().tolist():
                    result[name].append((layer, int(h)))
        return result
    """}),
]
