from build import H, W

BASE = {
    "repeated_tokens": """
        first = torch.randint(vocab_size, (batch, seq_len), generator=generator)  # int64 on the CPU
        return torch.cat([first, first], dim=1)  # (batch, 2 * seq_len)
    """,
    "previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) < 2:
            raise ValueError("previous_token_score needs L >= 2")
        prev = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): pattern[b, h, i, i-1]
        return prev.mean(dim=(0, 2))  # (H,)
    """,
    "induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) != 2 * seq_len:
            raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # queries seq_len-1 .. 2*seq_len-1
        return stripe[..., 1:].mean(dim=(0, 2))  # drop query seq_len-1 (first half): (H,)
    """,
    "find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.size(-1)
            if L % 2:
                raise ValueError(f"layer {layer}: L = {L} is odd, not a sequence repeated twice")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for head in range(pattern.size(1)):
                if prev[head] > threshold:
                    found["previous_token"].append((layer, head))
                if ind[head] > threshold:
                    found["induction"].append((layer, head))
        return found
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)"
NOT_INPLACE = r"in.place"

FILES = [
    W("ignores_generator",
      "repeated_tokens never passes `generator` to torch.randint, so it draws from the global RNG and a seeded generator does not reproduce the tokens",
      "repeated_tokens calls torch.randint(0, vocab_size, (batch, seq_len)) without generator=generator, so the tokens come from torch's global RNG: the caller's generator is ignored and the same seed does not give the same tokens; pass generator=generator.",
      [r"repeated_tokens", r"generator|seed|RNG|random state|reproduc"],
      [r"vocab_size ?- ?1|off.by.one", r"second half|repeat(ed)? (twice|order)", NOT_DTYPE],
      {"repeated_tokens": """
        first = torch.randint(0, vocab_size, (batch, seq_len))
        return torch.cat([first, first], dim=1)
    """}),
    W("negative_index_wraps",
      "previous_token_score loops over every query i = 0..L-1 and reads pattern[..., i, i - 1]; for i = 0 that is pattern[..., 0, -1], Python's wrap-around to the last key, so query 0 is counted",
      "previous_token_score averages pattern[:, :, i, i - 1] over i = 0 .. L-1; for i = 0, i - 1 = -1 wraps around to the last key, so query 0 (which has no previous token) is counted with a weight that is not a previous-token weight (0 for a causal pattern, so the score is too small by (L-1)/L); average over i = 1 .. L-1 only.",
      [r"previous_token_score", r"query 0|i ?= ?0|-1|wrap|first query|L ?- ?1|off.by.one|1 \.\. ?L"],
      [NOT_DTYPE, NOT_INPLACE, r"device"],
      {"previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        L = pattern.size(-1)
        if L < 2:
            raise ValueError("previous_token_score needs L >= 2")
        prev = torch.stack([pattern[:, :, i, i - 1] for i in range(L)], dim=-1)  # (B, H, L)
        return prev.mean(dim=(0, 2))
    """}),
    W("averages_over_heads",
      "previous_token_score averages the diagonal over dim -1 twice, so the second mean runs over the heads: it returns one number per batch item (B,) instead of one per head (H,)",
      "previous_token_score takes prev.mean(dim=-1).mean(dim=-1): the first mean is over the queries, but the second is over the heads axis, so it returns one score per batch item (shape (B,)) instead of one per head (H,) (and mixes the heads together); average over dims (0, 2), the batch and the queries.",
      [r"previous_token_score", r"\(B,\)|\(H,\)|per head|heads? (axis|dim)|batch (axis|dim)|mean\(dim|dims? \(0, ?2\)|shape|axis"],
      [NOT_DTYPE, NOT_INPLACE, r"query 0|wrap"],
      {"previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) < 2:
            raise ValueError("previous_token_score needs L >= 2")
        prev = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1)
        return prev.mean(dim=-1).mean(dim=-1)  # mean over the queries, then over the batch
    """}),
    W("arena_keeps_first_half_query",
      "induction_score averages the whole (1 - seq_len)-offset diagonal, as ARENA's TransformerLens induction_attn_detector does (ported from ARENA / TransformerLens), which includes query seq_len - 1 of the first half",
      "induction_score averages pattern.diagonal(1 - seq_len) as ARENA's TransformerLens detector does, but that diagonal's first entry is query seq_len - 1 reading key 0, which is in the first half and has no earlier copy; leave it out and average the seq_len queries i = seq_len .. 2·seq_len - 1.",
      [r"induction_score", r"seq_len ?- ?1|first (entry|element|half)|first.half|query seq_len|off.by.one|i ?= ?seq_len|drop|leave (it )?out"],
      [NOT_DTYPE, NOT_INPLACE, r"ValueError"],
      {"induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) != 2 * seq_len:
            raise ValueError(f"L = {pattern.size(-1)} is not 2 * seq_len = {2 * seq_len}")
        # as ARENA's induction_attn_detector: the mean of the (-seq_len + 1)-offset diagonal
        return pattern.diagonal(offset=-seq_len + 1, dim1=-2, dim2=-1).mean(dim=(0, 2))
    """}),
    W("odd_length_passes_check",
      "induction_score checks L // 2 != seq_len, which accepts an odd L = 2*seq_len + 1, so it returns a score instead of raising ValueError",
      "induction_score raises only if L // 2 != seq_len, and an odd L = 2·seq_len + 1 has L // 2 == seq_len, so a pattern that is not seq_len tokens repeated twice is scored instead of raising ValueError; the check must be L != 2 * seq_len.",
      [r"induction_score", r"ValueError|odd|2 ?\* ?seq_len|L ?// ?2|raise"],
      [NOT_DTYPE, NOT_INPLACE, r"generator"],
      {"induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        if pattern.size(-1) // 2 != seq_len:
            raise ValueError(f"L = {pattern.size(-1)} does not hold seq_len = {seq_len} tokens twice")
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
        return stripe[..., 1:].mean(dim=(0, 2))
    """}),
    W("threshold_inclusive",
      "find_heads keeps a head whose score is >= threshold; the docstring says a head counts only when score > threshold",
      "find_heads compares score >= threshold, so a head whose score equals the threshold exactly is listed; the docstring says a head counts when its score is above the threshold (score > threshold): use a strict >.",
      [r"find_heads", r">=|strict|equal|exactly|above|> ?threshold"],
      [NOT_DTYPE, NOT_INPLACE, r"tensor.{0,20}(index|int)"],
      {"find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.size(-1)
            if L % 2:
                raise ValueError(f"layer {layer}: L = {L} is odd, not a sequence repeated twice")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for head in range(pattern.size(1)):
                if prev[head] >= threshold:
                    found["previous_token"].append((layer, head))
                if ind[head] >= threshold:
                    found["induction"].append((layer, head))
        return found
    """}),
    W("tensor_head_indices",
      "find_heads appends head indices straight from torch.nonzero, so each entry is (int, 0-dim tensor) instead of (int, int)",
      "find_heads loops over torch.nonzero(scores > threshold).flatten() and appends (layer, head) with head still a 0-dim tensor, so the lists hold (int, tensor) pairs instead of (int, int) tuples (they print as tensor(1) and do not serialise); convert with int(head) or .tolist().",
      [r"find_heads", r"tensor|int\(|\.tolist|\(int, ?int\)|type"],
      [NOT_DTYPE, r">=", NOT_INPLACE],
      {"find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            L = pattern.size(-1)
            if L % 2:
                raise ValueError(f"layer {layer}: L = {L} is odd, not a sequence repeated twice")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for head in torch.nonzero(prev > threshold).flatten():
                found["previous_token"].append((layer, head))
            for head in torch.nonzero(ind > threshold).flatten():
                found["induction"].append((layer, head))
        return found
    """}),
    W("selector_matrix_on_cpu",
      "previous_token_score multiplies the pattern by a selector matrix made with torch.diag(torch.ones(L - 1, ...), -1) without device=, which fails for a pattern on a GPU",
      "previous_token_score builds its sub-diagonal selector with torch.diag(torch.ones(L - 1, dtype=pattern.dtype), -1) but no device=, so the selector is on the CPU and pattern * below fails for a pattern on a GPU; make it on pattern.device (or read pattern.diagonal(-1) directly).",
      [r"previous_token_score", r"device|torch\.diag|torch\.ones|cpu"],
      [r"query 0|wrap", NOT_INPLACE, r"\(B,\)"],
      {"previous_token_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        L = pattern.size(-1)
        if L < 2:
            raise ValueError("previous_token_score needs L >= 2")
        below = torch.diag(torch.ones(L - 1, dtype=pattern.dtype), -1)  # 1 at [i, i-1]
        return (pattern * below).sum(dim=(-2, -1)).mean(dim=0) / (L - 1)
    """}),
    W("zeroes_first_half_in_place",
      "induction_score zeroes the first half of the queries with pattern[:, :, :seq_len] = 0, writing into the caller's pattern",
      "induction_score sets pattern[:, :, :seq_len] = 0 to exclude the first half, which writes zeros into the caller's pattern; the score is right but the input is changed (a later call, or the previous-token score of the same pattern, sees zeros); leave the first entry of the stripe out instead of editing the pattern.",
      [r"induction_score", r"in.place|in place|= ?0|writ(es|ing) (zeros )?into|caller|input|mutat|modif|chang"],
      [NOT_DTYPE, r"ValueError", r"off.by.one"],
      {"induction_score": """
        if pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
            raise ValueError(f"pattern must be (B, H, L, L), got {tuple(pattern.shape)}")
        B, _, L, _ = pattern.shape
        if L != 2 * seq_len:
            raise ValueError(f"L = {L} is not 2 * seq_len = {2 * seq_len}")
        pattern[:, :, :seq_len] = 0  # the first half has no earlier copy
        stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # (B, H, seq_len + 1), first entry 0
        return stripe.sum(dim=(0, 2)) / (B * seq_len)
    """}),
    H("slices_and_tolist",
      "repeated_tokens with .repeat(1, 2); both scores read the diagonal of a slice (pattern[..., 1:, :-1] and pattern[..., seq_len:, 1:seq_len + 1]); find_heads with nonzero().tolist()",
      {"repeated_tokens": """
        return torch.randint(0, vocab_size, (batch, seq_len), generator=generator).repeat(1, 2)
    """,
       "previous_token_score": """
        if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] < 2:
            raise ValueError(f"expected (B, H, L, L) with L >= 2, got {tuple(pattern.shape)}")
        return pattern[..., 1:, :-1].diagonal(dim1=-2, dim2=-1).mean(dim=(0, -1))
    """,
       "induction_score": """
        if pattern.ndim != 4 or pattern.shape[-1] != pattern.shape[-2] or pattern.shape[-1] != 2 * seq_len:
            raise ValueError(f"expected (B, H, {2 * seq_len}, {2 * seq_len}), got {tuple(pattern.shape)}")
        # rows seq_len.., columns 1..seq_len: its diagonal is [i, i - seq_len + 1]
        return pattern[..., seq_len:, 1:seq_len + 1].diagonal(dim1=-2, dim2=-1).mean(dim=(0, -1))
    """,
       "find_heads": """
        found = {"previous_token": [], "induction": []}
        for layer, pattern in enumerate(patterns):
            if pattern.shape[-1] % 2 == 1:
                raise ValueError("an odd L cannot be a sequence repeated twice")
            scores = {"previous_token": previous_token_score(pattern),
                      "induction": induction_score(pattern, pattern.shape[-1] // 2)}
            for kind, s in scores.items():
                found[kind] += [(layer, h) for h in (s > threshold).nonzero().flatten().tolist()]
        return found
    """}),
    H("arena_style_loops",
      "adapted from ARENA's TransformerLens head detectors (nested layer/head loops, score > 0.4), with the stub's exact cells gathered by arange indexing; tokens from Tensor.random_ with the generator",
      {"repeated_tokens": """
        tokens = torch.empty(batch, seq_len, dtype=torch.long).random_(0, vocab_size, generator=generator)
        return torch.cat((tokens, tokens.clone()), dim=-1)
    """,
       "previous_token_score": """
        if len(pattern.shape) != 4:
            raise ValueError("pattern must be 4-D (B, H, L, L)")
        B, H, L, L2 = pattern.shape
        if L != L2 or L < 2:
            raise ValueError(f"pattern must be square with L >= 2, got {L} x {L2}")
        i = torch.arange(1, L, device=pattern.device)
        return pattern[:, :, i, i - 1].mean(dim=(0, 2))
    """,
       "induction_score": """
        if len(pattern.shape) != 4:
            raise ValueError("pattern must be 4-D (B, H, L, L)")
        B, H, L, L2 = pattern.shape
        if L != L2 or L != 2 * seq_len:
            raise ValueError(f"pattern must be ({2 * seq_len}, {2 * seq_len}), got {L} x {L2}")
        i = torch.arange(seq_len, L, device=pattern.device)  # the second half
        return pattern[:, :, i, i - seq_len + 1].mean(dim=(0, 2))
    """,
       "find_heads": """
        prev_heads, ind_heads = [], []
        for layer in range(len(patterns)):
            pattern = patterns[layer]
            L = pattern.shape[-1]
            if L % 2 != 0:
                raise ValueError(f"odd sequence length {L}")
            prev = previous_token_score(pattern)
            ind = induction_score(pattern, L // 2)
            for head in range(pattern.shape[1]):
                if prev[head].item() > threshold:
                    prev_heads.append((layer, head))
                if ind[head].item() > threshold:
                    ind_heads.append((layer, head))
        return {"previous_token": prev_heads, "induction": ind_heads}
    """}),
]
