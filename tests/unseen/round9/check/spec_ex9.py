import textwrap

OK_REP = """
t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return torch.cat([t, t], dim=1)
"""
OK_CHECK = """
if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
    raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
"""
OK_PREV = OK_CHECK + """
if pattern.size(-1) < 2:
    raise ValueError("need L >= 2")
return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))
"""
OK_IND = OK_CHECK + """
if pattern.size(-1) != 2 * seq_len:
    raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
return d[..., 1:].mean(dim=(0, 2))
"""
OK_FIND = """
found = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.size(-1)
    if L % 2:
        raise ValueError("odd L: not a sequence repeated twice")
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, L // 2)
    for h in range(pattern.size(1)):
        if prev[h].item() > threshold:
            found["previous_token"].append((layer, h))
        if ind[h].item() > threshold:
            found["induction"].append((layer, h))
return found
"""


def ok(**over):
    b = {"repeated_tokens": OK_REP, "previous_token_score": OK_PREV, "induction_score": OK_IND,
         "find_heads": OK_FIND}
    b.update(over)
    return b


VARIANTS = [
    dict(
        name="repeat_interleave_tokens", kind="wrong",
        mistake="repeated_tokens uses repeat_interleave(2, dim=1), which doubles each token in place ([7, 7, 2, 2, ...]) instead of repeating the whole sequence ([7, 2, ..., 7, 2, ...])",
        ideal="The second half must be the same seq_len tokens in the same order after the first: torch.cat([t, t], dim=1) (or t.repeat(1, 2)).\nrepeat_interleave duplicates each token next to itself, so there is nothing for an induction head to copy.",
        expect=[r"repeat_interleave|cat|same order|each token|twice in a row|second half|whole sequence|\[7, ?7|repeat\(1, ?2\)|adjacent|next to"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(repeated_tokens="""
            t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
            return t.repeat_interleave(2, dim=1)
            """),
    ),
    dict(
        name="randint_inclusive_high", kind="wrong",
        mistake="repeated_tokens calls torch.randint(0, vocab_size - 1, ...) as if the upper bound were inclusive (Python's random.randint), so token vocab_size - 1 never appears (and vocab_size = 1 fails)",
        ideal="torch.randint's high is exclusive: randint(vocab_size, ...) already draws 0 .. vocab_size - 1. Subtracting 1 drops the last token.",
        expect=[r"exclusive|inclusive|vocab_size ?- ?1|upper bound|high|last token|never|off[- ]by[- ]one|randint"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(repeated_tokens="""
            t = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)
            return torch.cat([t, t], dim=1)
            """),
    ),
    dict(
        name="prev_next_token_offset", kind="wrong",
        mistake="previous_token_score reads the diagonal with offset=+1 (pattern[i, i+1], the NEXT token) instead of offset=-1 (pattern[i, i-1])",
        ideal="The previous token of query i is key i-1, below the diagonal: diagonal(offset=-1). offset=+1 is above it, where a causal pattern is 0.",
        expect=[r"offset|-1|\+1|i ?- ?1|i ?\+ ?1|below|above|sub-?diagonal|super-?diagonal|next token|sign"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(previous_token_score=OK_CHECK + textwrap.dedent("""
            if pattern.size(-1) < 2:
                raise ValueError("need L >= 2")
            return pattern.diagonal(offset=1, dim1=-2, dim2=-1).mean(dim=(0, 2))
            """)),
    ),
    dict(
        name="prev_divides_by_L", kind="wrong",
        mistake="previous_token_score sums the L-1 sub-diagonal weights but divides by L, as if query 0 were counted too, so a perfect previous-token head scores (L-1)/L",
        ideal="Only queries 1..L-1 are counted (query 0 has no previous token): average over L-1 of them, not L.\nTake .mean() of the sub-diagonal instead of dividing its sum by L.",
        expect=[r"L ?- ?1|divid|mean|average|query 0|off[- ]by[- ]one|count|denominator|\(L-1\)/L"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(previous_token_score=OK_CHECK + textwrap.dedent("""
            L = pattern.size(-1)
            if L < 2:
                raise ValueError("need L >= 2")
            sub = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)    # (B, H, L - 1)
            return sub.sum(dim=-1).mean(dim=0) / L
            """)),
    ),
    dict(
        name="prev_no_short_check", kind="wrong",
        mistake="previous_token_score checks the shape but not L < 2: a (B, H, 1, 1) pattern gives a mean over nothing (NaN) instead of raising ValueError",
        ideal="With L = 1 there is no query with a previous token; the docstring asks for ValueError there, not a NaN score.\nAdd `if L < 2: raise ValueError(...)`.",
        expect=[r"ValueError|L ?< ?2|L ?= ?1|raise|nan|empty|single token"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(previous_token_score=OK_CHECK + textwrap.dedent("""
            return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))
            """)),
    ),
    dict(
        name="induction_keeps_first", kind="wrong",
        mistake="induction_score averages the whole diagonal at offset 1 - seq_len, including its first entry, which is query seq_len - 1 in the first half",
        ideal="The stripe starts at query seq_len - 1 (key 0), which is in the first half and has no earlier copy; only queries seq_len .. 2·seq_len - 1 count.\nDrop the first entry: d[..., 1:].",
        expect=[r"first (entry|element|half|query)|seq_len ?- ?1|second half|d\[\.\.\., ?1:\]|\[1:\]|off[- ]by[- ]one|extra|one too many"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(induction_score=OK_CHECK + textwrap.dedent("""
            if pattern.size(-1) != 2 * seq_len:
                raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len")
            return pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1).mean(dim=(0, 2))
            """)),
    ),
    dict(
        name="induction_same_token", kind="wrong",
        mistake="induction_score reads key i - seq_len (the earlier copy of the SAME token) instead of key i - seq_len + 1 (the token after it)",
        ideal="An induction head attends to the token that FOLLOWED the earlier occurrence, to copy it forward: key i - seq_len + 1, offset 1 - seq_len.\nKey i - seq_len is the duplicate itself (a duplicate-token head).",
        expect=[r"i ?- ?seq_len ?\+ ?1|1 ?- ?seq_len|offset|after|next|following|duplicate|same token|off[- ]by[- ]one|shift"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies=ok(induction_score=OK_CHECK + textwrap.dedent("""
            if pattern.size(-1) != 2 * seq_len:
                raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len")
            return pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1).mean(dim=(0, 2))
            """)),
    ),
    dict(
        name="find_tensor_indices", kind="wrong",
        mistake="find_heads collects the head indices from torch.nonzero, so the lists hold (int, tensor) pairs instead of (int, int) tuples",
        ideal="Iterating over nonzero() yields 0-dim/1-element tensors, not ints; the result must hold plain (int, int) tuples.\nConvert with int(h) / .item() / .tolist().",
        expect=[r"\bint\b|integer|tensor|\.item\(\)|tolist|type|plain python"],
        reject=[r"in[- ]?place", r"threshold"],
        bodies=ok(find_heads="""
            found = {"previous_token": [], "induction": []}
            for layer, pattern in enumerate(patterns):
                L = pattern.size(-1)
                if L % 2:
                    raise ValueError("odd L: not a sequence repeated twice")
                for key, scores in (("previous_token", previous_token_score(pattern)),
                                    ("induction", induction_score(pattern, L // 2))):
                    for h in torch.nonzero(scores > threshold).flatten():
                        found[key].append((layer, h))
            return found
            """),
    ),
    dict(
        name="advanced_indexing", kind="honest",
        method="t.repeat(1, 2); scores by advanced indexing with arange row/column indices; find_heads from score tensors with .tolist()",
        bodies=ok(repeated_tokens="""
            first = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
            return first.repeat(1, 2)
            """, previous_token_score="""
            if pattern.ndim != 4 or pattern.shape[2] != pattern.shape[3]:
                raise ValueError("expected a (B, H, L, L) pattern")
            L = pattern.shape[-1]
            if L < 2:
                raise ValueError("L must be at least 2")
            rows = torch.arange(1, L, device=pattern.device)
            return pattern[:, :, rows, rows - 1].mean(dim=(0, 2))
            """, induction_score="""
            if pattern.ndim != 4 or pattern.shape[2] != pattern.shape[3]:
                raise ValueError("expected a (B, H, L, L) pattern")
            if pattern.shape[-1] != 2 * seq_len:
                raise ValueError("L must be 2 * seq_len")
            rows = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
            return pattern[:, :, rows, rows - seq_len + 1].mean(dim=(0, 2))
            """, find_heads="""
            result = {"previous_token": [], "induction": []}
            for layer, pattern in enumerate(patterns):
                if pattern.shape[-1] % 2 != 0:
                    raise ValueError("patterns must have an even L")
                prev = previous_token_score(pattern).tolist()
                ind = induction_score(pattern, pattern.shape[-1] // 2).tolist()
                result["previous_token"] += [(layer, h) for h, s in enumerate(prev) if s > threshold]
                result["induction"] += [(layer, h) for h, s in enumerate(ind) if s > threshold]
            return result
            """),
    ),
    dict(
        name="masked_sum", kind="honest",
        method="stack-and-flatten for the repeat; scores as a masked sum (a one-hot stripe made with torch.diag in the pattern's dtype) divided by the count; find_heads with int() conversions",
        bodies=ok(repeated_tokens="""
            t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
            return torch.stack([t, t], dim=1).reshape(batch, 2 * seq_len)
            """, previous_token_score="""
            if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
                raise ValueError("pattern must be 4-D (B, H, L, L)")
            B, H, L, _ = pattern.shape
            if L < 2:
                raise ValueError("L < 2: no query has a previous token")
            stripe = torch.diag(pattern.new_ones(L - 1), diagonal=-1)     # 1 at [i, i-1]
            return (pattern * stripe).sum(dim=(0, 2, 3)) / (B * (L - 1))
            """, induction_score="""
            if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
                raise ValueError("pattern must be 4-D (B, H, L, L)")
            B, H, L, _ = pattern.shape
            if L != 2 * seq_len:
                raise ValueError("L != 2 * seq_len")
            block = pattern[:, :, seq_len:, 1:seq_len + 1]                # rows i >= seq_len, keys i - seq_len + 1
            return block.diagonal(dim1=-2, dim2=-1).mean(dim=(0, -1))
            """, find_heads="""
            out = {"previous_token": [], "induction": []}
            for layer, pattern in enumerate(patterns):
                L = int(pattern.shape[-1])
                if L % 2 == 1:
                    raise ValueError("L is odd")
                scores = {"previous_token": previous_token_score(pattern),
                          "induction": induction_score(pattern, L // 2)}
                for name, s in scores.items():
                    for h in range(int(s.shape[0])):
                        if float(s[h]) > threshold:
                            out[name].append((int(layer), int(h)))
            return out
            """),
    ),
]
