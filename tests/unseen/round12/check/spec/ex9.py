STUB = "exercise9_head_patterns.py"

REP_OK = """
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return torch.cat([first, first], dim=1)
"""
CHECK4 = """
if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
    raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
"""
PREV_OK = CHECK4 + """
if pattern.size(-1) < 2:
    raise ValueError("L must be at least 2: query 0 has no previous token")
return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))
"""
IND_CHECK = CHECK4 + """
if pattern.size(-1) != 2 * seq_len:
    raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
"""
IND_OK = IND_CHECK + """
stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
return stripe[..., 1:].mean(dim=(0, 2))
"""
FIND_OK = """
found = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.size(-1)
    if L % 2:
        raise ValueError(f"layer {layer}: odd L = {L} is not a sequence repeated twice")
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, L // 2)
    for head in range(prev.numel()):
        if prev[head] > threshold:
            found["previous_token"].append((layer, head))
        if ind[head] > threshold:
            found["induction"].append((layer, head))
return found
"""

FILES = [
    dict(name="wrong_cat_batch_axis", kind="wrong",
         mistake="repeated_tokens concatenates the two copies with torch.cat's default dim=0, stacking them as extra rows: shape (2*batch, seq_len) instead of (batch, 2*seq_len)",
         ideal="repeated_tokens: the repeat goes along the sequence, torch.cat([t, t], dim=1); the default dim=0 doubles the batch instead",
         expect=r"dim ?= ?1|dim ?= ?0|axis|shape|\(batch, ?2 ?\* ?seq_len\)|sequence|rows",
         reject=[r"generator|seed|dtype|device|off.by.one"],
         bodies=["""
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return torch.cat([first, first])
""", PREV_OK, IND_OK, FIND_OK]),
    dict(name="wrong_generator_ignored", kind="wrong",
         mistake="repeated_tokens never passes generator= to torch.randint, so it always draws from the global RNG: the same seeded generator does not give the same tokens",
         ideal="repeated_tokens: pass generator=generator to torch.randint; otherwise the caller's seed is ignored and results are not reproducible",
         expect=r"generator|seed|reproduc|global|rng|random state",
         reject=[r"dtype|device|shape|dim ?= ?0|off.by.one"],
         bodies=["""
first = torch.randint(vocab_size, (batch, seq_len))
return torch.cat([first, first], dim=1)
""", PREV_OK, IND_OK, FIND_OK]),
    dict(name="wrong_prev_superdiagonal", kind="wrong",
         mistake="previous_token_score reads the diagonal at offset=+1 (pattern[..., i, i+1], the NEXT token, always 0 under a causal mask) instead of offset=-1",
         ideal="previous_token_score: the previous token of query i is key i-1, below the diagonal: diagonal(offset=-1); offset=+1 reads key i+1, the next token",
         expect=r"offset ?= ?-1|offset ?= ?\+?1|i ?- ?1|below|sub-?diagonal|next token|previous",
         reject=[r"dtype|device|ValueError|mean over|batch"],
         bodies=[REP_OK, CHECK4 + """
if pattern.size(-1) < 2:
    raise ValueError("L must be at least 2: query 0 has no previous token")
return pattern.diagonal(offset=1, dim1=-2, dim2=-1).mean(dim=(0, 2))
""", IND_OK, FIND_OK]),
    dict(name="wrong_prev_wraps_query_zero", kind="wrong",
         mistake="previous_token_score indexes pattern[:, :, i, i - 1] for i = 0..L-1, so query 0 reads key -1, which wraps to key L-1: query 0 is counted (with a wrong cell) and the mean is over L queries, not L-1",
         ideal="previous_token_score: average over queries i = 1..L-1 only; for i = 0, i - 1 = -1 wraps to the last key, so start at 1 (or use diagonal(offset=-1))",
         expect=r"query 0|i ?= ?1|wrap|-1|negative index|L ?- ?1|start|off.by.one",
         reject=[r"dtype|device|ValueError|next token|offset ?= ?\+1"],
         bodies=[REP_OK, CHECK4 + """
L = pattern.size(-1)
if L < 2:
    raise ValueError("L must be at least 2: query 0 has no previous token")
i = torch.arange(L, device=pattern.device)
return pattern[:, :, i, i - 1].mean(dim=(0, 2))
""", IND_OK, FIND_OK]),
    dict(name="wrong_induction_keeps_first_half_query", kind="wrong",
         mistake="induction_score averages the whole diagonal at offset 1 - seq_len, including its first entry (query seq_len-1 in the FIRST half), instead of dropping it",
         ideal="induction_score: the stripe's first entry is query seq_len - 1, in the first half, which has no earlier copy; average only queries seq_len .. 2*seq_len-1 (drop that entry)",
         expect=r"first (entry|half)|seq_len ?- ?1|drop|leave (it )?out|second half|\[1:\]|off.by.one",
         reject=[r"dtype|device|ValueError|generator|offset ?= ?-seq_len"],
         bodies=[REP_OK, PREV_OK, IND_CHECK + """
stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
return stripe.mean(dim=(0, 2))
""", FIND_OK]),
    dict(name="wrong_induction_token_match", kind="wrong",
         mistake="induction_score reads key i - seq_len (the earlier copy of the SAME token, offset=-seq_len) instead of key i - seq_len + 1, the token after it that an induction head copies",
         ideal="induction_score: an induction head attends to the token AFTER the earlier occurrence, key i - seq_len + 1 (offset 1 - seq_len); key i - seq_len is the matching token itself",
         expect=r"1 ?- ?seq_len|i ?- ?seq_len ?\+ ?1|after|next|shift|\+ ?1|offset",
         reject=[r"dtype|device|ValueError|generator"],
         bodies=[REP_OK, PREV_OK, IND_CHECK + """
stripe = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)  # queries seq_len .. 2*seq_len-1
return stripe.mean(dim=(0, 2))
""", FIND_OK]),
    dict(name="wrong_induction_no_length_check", kind="wrong",
         mistake="induction_score checks the pattern is 4-D and square but not that L == 2 * seq_len, so a mismatched seq_len silently returns a number instead of raising ValueError",
         ideal="induction_score: the docstring requires ValueError when L != 2 * seq_len; without the check a wrong seq_len gives a meaningless score",
         expect=r"ValueError|2 ?\* ?seq_len|L ?!= ?2|raise|check",
         reject=[r"dtype|device|offset|first entry|generator"],
         bodies=[REP_OK, PREV_OK, CHECK4 + """
stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
return stripe[..., 1:].mean(dim=(0, 2))
""", FIND_OK]),
    dict(name="wrong_threshold_inclusive", kind="wrong",
         mistake="find_heads keeps heads whose score is >= threshold, though a head counts only when score > threshold (a score exactly at the threshold is wrongly included)",
         ideal="find_heads: use a strict comparison, score > threshold; >= also counts heads exactly at the threshold",
         expect=r">=|> ?threshold|strict|boundary|exactly|equal",
         reject=[r"dtype|device|offset|generator|ValueError"],
         bodies=[REP_OK, PREV_OK, IND_OK, """
found = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.size(-1)
    if L % 2:
        raise ValueError(f"layer {layer}: odd L = {L} is not a sequence repeated twice")
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, L // 2)
    for head in range(prev.numel()):
        if prev[head] >= threshold:
            found["previous_token"].append((layer, head))
        if ind[head] >= threshold:
            found["induction"].append((layer, head))
return found
"""]),
    dict(name="honest_advanced_indexing", kind="honest",
         method="repeated_tokens with Tensor.repeat(1, 2); scores gather the stripes by advanced indexing with explicit query/key index vectors; find_heads uses torch.nonzero and .tolist()",
         helpers='''
def _require_square_4d(pattern):
    if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2]:
        raise ValueError("expected a (B, H, L, L) pattern, got shape %s" % (tuple(pattern.shape),))
    return pattern.shape[-1]
''',
         bodies=["""
tokens = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
return tokens.repeat(1, 2)
""", """
L = _require_square_4d(pattern)
if L < 2:
    raise ValueError("previous_token_score needs L >= 2")
queries = torch.arange(1, L, device=pattern.device)
return pattern[:, :, queries, queries - 1].mean(dim=(0, 2))
""", """
L = _require_square_4d(pattern)
if L != 2 * seq_len:
    raise ValueError("induction_score needs L == 2 * seq_len, got L=%d, seq_len=%d" % (L, seq_len))
queries = torch.arange(seq_len, L, device=pattern.device)
return pattern[:, :, queries, queries - seq_len + 1].mean(dim=(0, 2))
""", """
result = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.shape[-1]
    if L % 2 == 1:
        raise ValueError("odd L: patterns must be on a sequence repeated twice")
    for key, score in (("previous_token", previous_token_score(pattern)),
                       ("induction", induction_score(pattern, L // 2))):
        for (head,) in torch.nonzero(score > threshold).tolist():
            result[key].append((layer, int(head)))
return result
"""]),
    dict(name="honest_template_detector", kind="honest",
         method="TransformerLens head-detector style: multiply the pattern by a 0/1 template of the cells a head should attend to (a shifted identity from torch.eye) and divide the sum by the number of scored queries",
         helpers='''
def _check(pattern):
    if pattern.dim() != 4:
        raise ValueError("pattern must be 4-D (B, H, L, L)")
    B, H, L, L2 = pattern.shape
    if L != L2:
        raise ValueError("the last two dims of pattern must be equal")
    return B, L


def _template_score(pattern, template, n_queries):
    """Mean weight on the template's cells: (H,)."""
    B = pattern.shape[0]
    return (pattern * template).sum(dim=(0, 2, 3)) / (B * n_queries)
''',
         bodies=["""
half = torch.randint(high=vocab_size, size=(batch, seq_len), generator=generator)
return torch.hstack((half, half))
""", """
B, L = _check(pattern)
if L < 2:
    raise ValueError("L must be >= 2")
template = torch.eye(L, dtype=pattern.dtype, device=pattern.device).roll(-1, dims=1)  # row i -> column i-1
template[0].zero_()  # query 0 has no previous token
return _template_score(pattern, template, L - 1)
""", """
B, L = _check(pattern)
if L != 2 * seq_len:
    raise ValueError("L must be 2 * seq_len")
template = torch.zeros(L, L, dtype=pattern.dtype, device=pattern.device)
rows = torch.arange(seq_len, L, device=pattern.device)
template[rows, rows - seq_len + 1] = 1
return _template_score(pattern, template, seq_len)
""", """
out = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    L = pattern.shape[-1]
    if L % 2 != 0:
        raise ValueError("patterns must have an even L (seq_len tokens repeated twice)")
    prev_scores = previous_token_score(pattern).tolist()
    ind_scores = induction_score(pattern, L // 2).tolist()
    out["previous_token"].extend((layer, h) for h, s in enumerate(prev_scores) if s > threshold)
    out["induction"].extend((layer, h) for h, s in enumerate(ind_scores) if s > threshold)
return out
"""]),
]
