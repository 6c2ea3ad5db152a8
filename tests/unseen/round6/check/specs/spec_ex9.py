EX = 9
STUB = "exercise9_head_patterns.py"
SHAPE_CHECK = """
if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
    raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
"""
PREV = SHAPE_CHECK + """
if pattern.size(-1) < 2:
    raise ValueError("previous_token_score needs L >= 2")
diag = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): pattern[..., i, i-1]
return diag.mean(dim=(0, 2))
"""
IND = SHAPE_CHECK + """
if pattern.size(-1) != 2 * seq_len:
    raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
diag = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
return diag[..., 1:].mean(dim=(0, 2))  # drop query seq_len-1, in the first half
"""
FIND = """
result = {"previous_token": [], "induction": []}
for layer, pattern in enumerate(patterns):
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, pattern.size(-1) // 2)
    for h in range(prev.shape[0]):
        if prev[h] > threshold:
            result["previous_token"].append((layer, h))
        if ind[h] > threshold:
            result["induction"].append((layer, h))
return result
"""
CORRECT = {
    "repeated_tokens": """
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return torch.cat([first, first], dim=1)
""",
    "previous_token_score": PREV,
    "induction_score": IND,
    "find_heads": FIND,
}
VARIANTS = [
    dict(slug="tokens_interleaved", kind="wrong",
         mistake="repeated_tokens uses repeat_interleave(2, dim=1), doubling each token in place ([7, 7, 2, 2, ...]) instead of repeating the whole sequence",
         ideal="repeated_tokens calls repeat_interleave(2, dim=1), which doubles each token next to itself ([7, 7, 2, 2, ...]) instead of appending the same seq_len tokens again ([7, 2, 9, 4, 7, 2, 9, 4]).",
         expect=[r"repeat_interleave|doubl|each token|\[7, ?7|interleav|next to itself", r"sequence|second half|same tokens|again|cat|order"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"generator"],
         bodies={"repeated_tokens": """
first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
return first.repeat_interleave(2, dim=1)
"""}),
    dict(slug="tokens_ignore_generator", kind="wrong",
         mistake="repeated_tokens never passes the generator to torch.randint, so the same seed does not give the same tokens",
         ideal="repeated_tokens ignores its generator argument (torch.randint without generator=generator), so it draws from the global RNG and the same seeded generator does not reproduce the same tokens.",
         expect=[r"generator|seed|reproduc|global"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"interleav"],
         bodies={"repeated_tokens": """
first = torch.randint(vocab_size, (batch, seq_len))
return torch.cat([first, first], dim=1)
"""}),
    dict(slug="tokens_int32", kind="wrong",
         mistake="repeated_tokens asks torch.randint for dtype=torch.int32 ('token ids fit in 32 bits'), not int64",
         ideal="repeated_tokens draws with dtype=torch.int32, so the tokens are int32 instead of int64 (torch.long) as the docstring requires (embedding lookups and the grader expect long).",
         expect=[r"int32|int64|long|dtype"],
         reject=[r"generator", r"interleav"],
         bodies={"repeated_tokens": """
first = torch.randint(vocab_size, (batch, seq_len), generator=generator, dtype=torch.int32)
return torch.cat([first, first], dim=1)
"""}),
    dict(slug="prev_divides_by_L", kind="wrong",
         mistake="previous_token_score sums the sub-diagonal and divides by L instead of L - 1 (the number of queries that have a previous token)",
         ideal="previous_token_score divides the sum of the L - 1 sub-diagonal weights by L instead of L - 1, so a perfect previous-token head scores (L-1)/L instead of 1.",
         expect=[r"divid|denominator|normali[sz]|/ ?l\b|by l\b", r"l ?[-−–] ?1|\(l ?[-−–] ?1\) ?/ ?l"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"offset|\+1|above the diagonal"],
         bodies={"previous_token_score": SHAPE_CHECK + """
if pattern.size(-1) < 2:
    raise ValueError("previous_token_score needs L >= 2")
B, H, L, _ = pattern.shape
diag = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)
return diag.sum(dim=-1).mean(dim=0) / L  # average over the L queries
"""}),
    dict(slug="prev_no_L1_check", kind="wrong",
         mistake="previous_token_score validates only the 4-D square shape and forgets L < 2, so L = 1 returns NaN instead of raising ValueError",
         ideal="previous_token_score never raises for L < 2: with L = 1 the sub-diagonal is empty and the mean is NaN instead of the ValueError the docstring requires.",
         expect=[r"l ?< ?2|l ?= ?1|l >= 2|single|one token|empty", r"valueerror|raise|nan"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong offset|offset (is|was) wrong|above the diagonal"],
         bodies={"previous_token_score": SHAPE_CHECK + """
diag = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): pattern[..., i, i-1]
return diag.mean(dim=(0, 2))
"""}),
    dict(slug="prev_wrong_axis", kind="wrong",
         mistake="previous_token_score averages over the heads instead of the batch (mean over queries, then dim=1), returning one score per batch element (B,) instead of per head (H,)",
         ideal="previous_token_score averages over dim 1 (the heads) instead of dim 0 (the batch), so it returns (B,) scores per sequence rather than (H,) per head; with B == H the shape even looks right.",
         expect=[r"over (dim 1|the heads|heads)|dim(ension)? 1|wrong (axis|dim)", r"\(b,\)|batch|dim 0"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong offset|offset (is|was) wrong|above the diagonal"],
         bodies={"previous_token_score": SHAPE_CHECK + """
if pattern.size(-1) < 2:
    raise ValueError("previous_token_score needs L >= 2")
diag = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1)
return diag.mean(dim=-1).mean(dim=1)
"""}),
    dict(slug="ind_same_token", kind="wrong",
         mistake="induction_score reads key i - seq_len (the earlier copy of the SAME token, a duplicate-token head) instead of key i - seq_len + 1, the token after it",
         ideal="induction_score uses the diagonal at offset -seq_len, key i - seq_len, which is the earlier occurrence of the same token (a duplicate-token pattern), instead of key i - seq_len + 1, the token right after it that an induction head copies.",
         expect=[r"i ?- ?seq_len|offset|-seq_len|same token|duplicate|earlier (copy|occurrence)", r"\+ ?1|after|next|one (key|position)|off by one"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"first half|seq_len ?- ?1 (is|was) included"],
         bodies={"induction_score": SHAPE_CHECK + """
if pattern.size(-1) != 2 * seq_len:
    raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
diag = pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1)  # queries seq_len .. 2*seq_len-1
return diag.mean(dim=(0, 2))
"""}),
    dict(slug="ind_python_floats", kind="wrong",
         mistake="induction_score collects per-head Python floats and returns torch.tensor(list): float32 on the CPU, whatever the pattern's dtype and device (and no gradient)",
         ideal="induction_score builds its result with torch.tensor([...]) of Python floats, so the scores are float32 on the CPU rather than in the pattern's dtype and on its device (float64 patterns lose precision).",
         expect=[r"dtype|float32|float64|device|cpu|torch\.tensor|python float|\.item"],
         reject=[r"offset|same token", r"first half"],
         bodies={"induction_score": SHAPE_CHECK + """
if pattern.size(-1) != 2 * seq_len:
    raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
diag = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:]  # (B, H, seq_len)
return torch.tensor([float(diag[:, h].mean()) for h in range(pattern.size(1))])
"""}),
    dict(slug="find_at_threshold", kind="wrong",
         mistake="find_heads keeps heads whose score is >= threshold, so a head exactly at the threshold is counted",
         ideal="find_heads compares score >= threshold, but a head counts only when its score is strictly above the threshold (score > threshold), so a head exactly at the threshold is wrongly included.",
         expect=[r">=|strict|equal|exactly|at the threshold|boundary", r"threshold|>"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)", r"wrong order|order (is|was) wrong|sorted"],
         bodies={"find_heads": FIND.replace("> threshold", ">= threshold")}),
    dict(slug="find_shared_result", kind="wrong",
         mistake="find_heads appends into a module-level result dict that is never cleared, so every call returns the heads of all earlier calls too",
         ideal="find_heads accumulates into a module-level dict created once at import, so its lists keep the heads of previous calls and a second call returns stale, duplicated entries; the result must be a fresh dict per call.",
         expect=[r"module[- ]level|global|shared|accumulat|state|persist|fresh|previous call|stale|mutable", r"call|dict|list|result"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r">="],
         prelude='''
_HEADS = {"previous_token": [], "induction": []}  # filled by find_heads
''',
         bodies={"find_heads": """
for layer, pattern in enumerate(patterns):
    prev = previous_token_score(pattern)
    ind = induction_score(pattern, pattern.size(-1) // 2)
    for h in range(prev.shape[0]):
        if prev[h] > threshold:
            _HEADS["previous_token"].append((layer, h))
        if ind[h] > threshold:
            _HEADS["induction"].append((layer, h))
return _HEADS
"""}),
    dict(slug="loops", kind="honest",
         method="explicit Python loops over the queries for both scores, Tensor.repeat for the tokens, nested loops with float() in find_heads",
         ideal="Correct: summing pattern[:, :, i, i-1] over i = 1..L-1 and pattern[:, :, i, i-seq_len+1] over the second half, divided by the counts, gives the same means in the pattern's dtype; the shape checks raise ValueError.",
         bodies={"repeated_tokens": """
half = torch.randint(0, vocab_size, (batch, seq_len), generator=generator, dtype=torch.long)
return half.repeat(1, 2)
""", "previous_token_score": """
if pattern.ndim != 4 or pattern.shape[2] != pattern.shape[3] or pattern.shape[2] < 2:
    raise ValueError("pattern must be (B, H, L, L) with L >= 2")
B, H, L, _ = pattern.shape
total = pattern[:, :, 1, 0].sum(dim=0)
for i in range(2, L):
    total = total + pattern[:, :, i, i - 1].sum(dim=0)
return total / (B * (L - 1))
""", "induction_score": """
if pattern.ndim != 4 or pattern.shape[2] != pattern.shape[3]:
    raise ValueError("pattern must be (B, H, L, L)")
B, H, L, _ = pattern.shape
if L != 2 * seq_len:
    raise ValueError("L must be 2 * seq_len")
total = pattern[:, :, seq_len, 1].sum(dim=0)
for i in range(seq_len + 1, 2 * seq_len):
    total = total + pattern[:, :, i, i - seq_len + 1].sum(dim=0)
return total / (B * seq_len)
""", "find_heads": """
found = {"previous_token": [], "induction": []}
for layer in range(len(patterns)):
    p = patterns[layer]
    if p.shape[-1] % 2:
        raise ValueError("odd L: not a sequence repeated twice")
    prev, ind = previous_token_score(p), induction_score(p, p.shape[-1] // 2)
    for head in range(p.shape[1]):
        if float(prev[head]) > threshold:
            found["previous_token"].append((layer, head))
        if float(ind[head]) > threshold:
            found["induction"].append((layer, head))
return found
"""}),
    dict(slug="fancy_index", kind="honest",
         method="advanced indexing with aranges on the pattern's device for both stripes; tile for the tokens; torch.nonzero + tolist in find_heads",
         ideal="Correct: indexing pattern[:, :, i, i-1] and pattern[:, :, i, i-seq_len+1] with aranges picks exactly the stripes, and nonzero(...).tolist() gives int heads in increasing order per layer.",
         bodies={"repeated_tokens": """
t = torch.randint(vocab_size, size=(batch, seq_len), generator=generator)
return t.tile((1, 2))
""", "previous_token_score": """
if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
    raise ValueError("expected (B, H, L, L)")
L = pattern.shape[-1]
if L < 2:
    raise ValueError("need L >= 2")
i = torch.arange(1, L, device=pattern.device)
return pattern[:, :, i, i - 1].mean(dim=(0, 2))
""", "induction_score": """
if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:
    raise ValueError("expected (B, H, L, L)")
if pattern.shape[-1] != 2 * seq_len:
    raise ValueError("expected L = 2 * seq_len")
i = torch.arange(seq_len, 2 * seq_len, device=pattern.device)
return pattern[:, :, i, i - seq_len + 1].mean(dim=(0, 2))
""", "find_heads": """
out = {"previous_token": [], "induction": []}
for layer, p in enumerate(patterns):
    scores = {"previous_token": previous_token_score(p), "induction": induction_score(p, p.shape[-1] // 2)}
    for key, s in scores.items():
        heads = torch.nonzero(s > threshold).flatten().tolist()
        out[key].extend((layer, int(h)) for h in heads)
return out
"""}),
]
