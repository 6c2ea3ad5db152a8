STUB = "exercise9_head_patterns.py"
CHK = "if pattern.dim() != 4 or pattern.shape[-1] != pattern.shape[-2]:\n    raise ValueError('pattern must be (B, H, L, L)')\n"
PREV = CHK + "if pattern.shape[-1] < 2:\n    raise ValueError('need L >= 2')\nreturn pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))"
IND = CHK + "if pattern.shape[-1] != 2 * seq_len:\n    raise ValueError('L must be 2 * seq_len')\nreturn pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)[..., 1:].mean(dim=(0, 2))"
FIND = "found = {'previous_token': [], 'induction': []}\nfor layer, pattern in enumerate(patterns):\n    L = pattern.shape[-1]\n    prev = previous_token_score(pattern)\n    ind = induction_score(pattern, L // 2)\n    for h in range(pattern.shape[1]):\n        if prev[h] > threshold:\n            found['previous_token'].append((layer, h))\n        if ind[h] > threshold:\n            found['induction'].append((layer, h))\nreturn found"
DEFAULT = ["t = torch.randint(vocab_size, (batch, seq_len), generator=generator)\nreturn torch.cat([t, t], dim=1)", PREV, IND, FIND]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"
N = None

add("wrong", "generator_ignored",
    "repeated_tokens draws with torch.randint(...) without passing generator=, so a seeded generator does not make the tokens reproducible.",
    "You never pass the generator to torch.randint, so the same seed does not give the same tokens; add generator=generator.",
    r"(?i)(generator|seed|reproduc)", r"(?i)(dtype|device|diagonal|threshold|off[- ]by[- ]one)",
    ["t = torch.randint(vocab_size, (batch, seq_len))\nreturn torch.cat([t, t], dim=1)", N, N, N], fails=["tokens"])
add("wrong", "vocab_upper_excluded",
    "repeated_tokens draws torch.randint(0, vocab_size - 1, ...), whose upper bound is already exclusive, so token vocab_size - 1 never appears (and vocab_size=1 raises).",
    "torch.randint's high is exclusive: randint(0, vocab_size - 1) never draws vocab_size - 1; use randint(0, vocab_size, ...).",
    r"(?i)(exclusive|vocab_size ?- ?1|upper|high|never|off[- ]by[- ]one|range)",
    r"(?i)(dtype|device|generator|diagonal|threshold)",
    ["t = torch.randint(0, vocab_size - 1, (batch, seq_len), generator=generator)\nreturn torch.cat([t, t], dim=1)", N, N, N], fails=["tokens"])
add("wrong", "previous_counts_query0",
    "previous_token_score gathers pattern[..., i, i - 1] for every i with an index vector arange(L) - 1, so query 0 reads key -1 (the last key) and is counted, diluting the mean.",
    "Your index i - 1 wraps to key -1 (the last key) for query 0, which has no previous token; average over queries 1 .. L-1 only (pattern.diagonal(offset=-1)).",
    r"(?i)(query 0|first query|wrap|-1|1 ?\.\. ?L|L ?- ?1|off[- ]by[- ]one|diagonal)",
    r"(?i)(dtype|device|generator|threshold|ValueError)",
    [N, CHK + "L = pattern.shape[-1]\nif L < 2:\n    raise ValueError('need L >= 2')\ni = torch.arange(L, device=pattern.device)\nreturn pattern[:, :, i, i - 1].mean(dim=(0, 2))", N, N],
    fails=["previous"])
add("wrong", "induction_same_token",
    "induction_score reads key i - seq_len (the earlier copy of the same token) instead of key i - seq_len + 1 (the token after it).",
    "An induction head attends to the token AFTER the earlier occurrence: key i - seq_len + 1, the diagonal at offset 1 - seq_len, not i - seq_len.",
    r"(?i)(i ?- ?seq_len ?\+ ?1|1 ?- ?seq_len|after|next token|offset|off[- ]by[- ]one)",
    r"(?i)(dtype|device|generator|threshold|ValueError)",
    [N, N, CHK + "if pattern.shape[-1] != 2 * seq_len:\n    raise ValueError('L must be 2 * seq_len')\nreturn pattern.diagonal(offset=-seq_len, dim1=-2, dim2=-1).mean(dim=(0, 2))", N],
    fails=["induction"])
add("wrong", "threshold_inclusive",
    "find_heads keeps a head whose score equals the threshold (score >= threshold), but the docstring says strictly above.",
    "A head counts only when its score is > threshold; >= also keeps heads exactly at the threshold.",
    r"(?i)(>=|strict|above|equal|threshold)", r"(?i)(dtype|device|generator|diagonal|offset)",
    [N, N, N, FIND.replace("> threshold", ">= threshold")], fails=["find_heads"])
add("wrong", "tensor_head_indices",
    "find_heads builds its lists from torch.nonzero, so the tuples hold 0-d tensors (0, tensor(2)) rather than the documented (int, int).",
    "The docstring asks for (int, int) tuples; convert the head indices from nonzero with int() / .tolist().",
    r"(?i)(int|tensor|tolist|tuple|type)", r"(?i)(dtype|device|generator|diagonal|threshold value)",
    [N, N, N, "found = {'previous_token': [], 'induction': []}\nfor layer, pattern in enumerate(patterns):\n    L = pattern.shape[-1]\n    for key, s in (('previous_token', previous_token_score(pattern)), ('induction', induction_score(pattern, L // 2))):\n        for h in torch.nonzero(s > threshold).flatten():\n            found[key].append((layer, h))\nreturn found"],
    fails=["find_heads"])
add("wrong", "scores_rebuilt_float32",
    "previous_token_score collects the per-head means with .item() into a list and rebuilds them with torch.tensor(list), so the scores are float32 on the CPU whatever the pattern's dtype and device.",
    "torch.tensor(list of floats) is float32 on the CPU; keep the computation in tensors (diagonal(...).mean(dim=(0, 2))) so the result stays in the pattern's dtype and device.",
    r"(?i)(dtype|float32|device|cpu|torch\.tensor|\.item)", r"(?i)(generator|diagonal offset|threshold|off[- ]by[- ]one)",
    [N, CHK + "L = pattern.shape[-1]\nif L < 2:\n    raise ValueError('need L >= 2')\nscores = []\nfor h in range(pattern.shape[1]):\n    scores.append(pattern[:, h].diagonal(offset=-1, dim1=-2, dim2=-1).mean().item())\nreturn torch.tensor(scores)", N, N],
    fails=["previous_dtype"])
add("wrong", "length_one_not_rejected",
    "previous_token_score checks the shape but not L >= 2, so a (B, H, 1, 1) pattern returns NaN (the mean of nothing) instead of raising ValueError.",
    "With L = 1 there is no previous token and the mean of an empty diagonal is NaN; raise ValueError when L < 2, as the docstring says.",
    r"(?i)(L ?< ?2|L ?= ?1|ValueError|empty|NaN|raise)", r"(?i)(dtype|device|generator|threshold|offset)",
    [N, CHK + "return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))", N, N], fails=["validation"])
add("honest", "index_gather",
    "repeated_tokens with .repeat(1, 2); scores by advanced indexing with explicit query/key index vectors, averaged with sum / count; find_heads collects with nonzero().tolist().",
    "", OKX, BADX,
    ["first = torch.randint(0, vocab_size, size=(batch, seq_len), generator=generator, dtype=torch.long)\nreturn first.repeat(1, 2)",
     "if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2) or pattern.size(-1) < 2:\n    raise ValueError(f'bad pattern shape {tuple(pattern.shape)}')\nL = pattern.size(-1)\nqi = torch.arange(1, L, device=pattern.device)\nvals = pattern[..., qi, qi - 1]\nreturn vals.sum(dim=(0, 2)) / (vals.shape[0] * vals.shape[2])",
     "if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2) or pattern.size(-1) != 2 * seq_len:\n    raise ValueError(f'bad pattern shape {tuple(pattern.shape)} for seq_len={seq_len}')\nqi = torch.arange(seq_len, 2 * seq_len, device=pattern.device)\nvals = pattern[..., qi, qi - seq_len + 1]\nreturn vals.sum(dim=(0, 2)) / (vals.shape[0] * vals.shape[2])",
     "out = {'previous_token': [], 'induction': []}\nfor layer, pattern in enumerate(patterns):\n    if pattern.shape[-1] % 2:\n        raise ValueError('odd L: not a sequence repeated twice')\n    scores = {'previous_token': previous_token_score(pattern), 'induction': induction_score(pattern, pattern.shape[-1] // 2)}\n    for key, s in scores.items():\n        out[key].extend((layer, h) for h in (s > threshold).nonzero().flatten().tolist())\nreturn out"])
add("honest", "mask_weighted_mean",
    "scores as a masked mean: a boolean (L, L) selector of the wanted cells (a one-diagonal band made with tril and triu) multiplies the pattern and the sum is divided by the number of cells; find_heads via list comprehensions.",
    "", OKX, BADX,
    [N,
     "if pattern.dim() != 4 or pattern.shape[2] != pattern.shape[3]:\n    raise ValueError('expected (B, H, L, L)')\nL = pattern.shape[-1]\nif L < 2:\n    raise ValueError('L must be at least 2')\nsel = torch.ones(L, L, dtype=torch.bool, device=pattern.device).tril(-1).triu(-1)\nreturn (pattern * sel).sum(dim=(0, 2, 3)) / (pattern.shape[0] * (L - 1))",
     "if pattern.dim() != 4 or pattern.shape[2] != pattern.shape[3]:\n    raise ValueError('expected (B, H, L, L)')\nL = pattern.shape[-1]\nif L != 2 * seq_len:\n    raise ValueError('L != 2 * seq_len')\nsel = torch.ones(L, L, dtype=torch.bool, device=pattern.device).tril(1 - seq_len).triu(1 - seq_len)\nsel[: seq_len] = False\nreturn (pattern * sel).sum(dim=(0, 2, 3)) / (pattern.shape[0] * seq_len)",
     "res = {'previous_token': [], 'induction': []}\nfor layer, p in enumerate(patterns):\n    pt = previous_token_score(p).tolist()\n    it = induction_score(p, p.shape[-1] // 2).tolist()\n    res['previous_token'] += [(layer, h) for h, s in enumerate(pt) if s > threshold]\n    res['induction'] += [(layer, h) for h, s in enumerate(it) if s > threshold]\nreturn res"])
VARIANTS = V
