DEFAULT = {
    "softmax": """
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """,
    "scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """,
}

VARIANTS = [
    dict(kind="wrong", name="global_max_shift",
         mistake="softmax subtracts the maximum of the WHOLE tensor (x.max()) instead of each slice's maximum along dim",
         ideal="Subtracting one global max (x.max()) is only safe if every slice has a value near it: a slice whose entries are far below the global max (e.g. -1e4 when another slice holds +1e4) underflows to all zeros and comes out as zeros (or 0/0) instead of summing to 1; subtract the max of each slice along dim (keepdim=True).",
         expect=[r"global|whole tensor|x\.max\(\)|one max", r"slice|row|per|along dim|keepdim"],
         bodies={"softmax": """
        m = x.max()
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    dict(kind="wrong", name="nan_to_num_afterwards",
         mistake="softmax lets a fully masked slice become 0/0 = NaN and patches the result with torch.nan_to_num, so its gradient is still NaN",
         ideal="nan_to_num hides the NaN of an all -inf slice in the forward pass only: the backward still goes through exp(-inf - (-inf)) = NaN, so the gradients are NaN for fully masked rows; guard the max (use 0 for a max of -inf) and the sum of 0 before they produce NaN.",
         expect=[r"nan_to_num|NaN", r"gradient|backward"],
         bodies={"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        e = torch.exp(x - m)
        out = e / e.sum(dim=dim, keepdim=True)
        return torch.nan_to_num(out, nan=0.0)
    """}),
    dict(kind="wrong", name="max_without_keepdim",
         mistake="softmax takes the max and the sum without keepdim=True, so they broadcast against the wrong axis (silently for square inputs)",
         ideal="Without keepdim=True the reduced max and sum lose the dim, and broadcasting lines them up with the last axis instead: for a square (n, n) input each entry is shifted and divided by another row's (column's) value, giving rows that do not sum to 1; other shapes error. Keep the dim with keepdim=True.",
         expect=[r"keepdim", r"broadcast|square|axis|wrong (row|dim)"],
         bodies={"softmax": """
        m = x.amax(dim=dim)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    dict(kind="wrong", name="logsumexp_unguarded",
         mistake="softmax is exp(x - logsumexp(x)), which gives NaN for a slice that is entirely -inf (logsumexp = -inf, and -inf - -inf = NaN)",
         ideal="exp(x - logsumexp(x)) is stable for finite rows, but for an all -inf slice logsumexp is -inf and x - (-inf) is -inf + inf = NaN, so a fully masked row becomes NaN instead of zeros; guard that case (replace those rows before the logsumexp).",
         expect=[r"logsumexp", r"NaN|-inf|fully masked|all -inf"],
         bodies={"softmax": """
        return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
    """}),
    dict(kind="wrong", name="clamp_max_at_zero",
         mistake="softmax guards the -inf max with m.clamp(min=0), which also replaces every negative maximum by 0 and underflows rows of large negative scores",
         ideal="clamp(min=0) does turn a max of -inf into 0, but it also turns every negative max into 0, so a slice whose entries are all very negative (say -1e4) is not shifted: e^(-1e4) underflows to 0 and the slice gives zeros instead of summing to 1; replace only a max of -inf (torch.where).",
         expect=[r"clamp", r"negative|underflow|-1e4"],
         bodies={"softmax": """
        m = x.amax(dim=dim, keepdim=True).clamp(min=0)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    dict(kind="wrong", name="mask_after_softmax",
         mistake="scaled_dot_product_attention zeroes the masked weights AFTER the softmax instead of setting the scores to -inf before it, so rows no longer sum to 1",
         ideal="Masking after the softmax (weights * mask) removes the hidden keys' weight but does not renormalise: each row sums to less than 1 over the keys it may see; set the scores to -inf where the mask is False before the softmax.",
         expect=[r"after (the )?softmax|renormali", r"sum to 1|-inf|before"],
         bodies={"scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        weights = softmax(scores, dim=-1)
        if mask is not None:
            weights = weights * mask
        return weights @ v, weights
    """}),
    dict(kind="wrong", name="causal_by_default",
         mistake="scaled_dot_product_attention adds a causal mask when mask is None, as a GPT decoder would",
         ideal="With mask=None the contract is that every query reads every key (no causal mask is added), but this code builds a causal mask itself, so query i ignores the keys after it; the causal mask belongs to the caller.",
         expect=[r"causal", r"mask=None|mask is None|None|every key|default"],
         bodies={"scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is None:
            L_q, L_k = scores.shape[-2], scores.shape[-1]
            mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril(diagonal=L_k - L_q)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """}),
    dict(kind="wrong", name="large_negative_fill",
         mistake="scaled_dot_product_attention fills masked scores with -1e9 instead of -inf, so a fully masked query gets uniform weights",
         ideal="A large negative constant (-1e9) is not -inf: a query whose mask row is all False has all scores equal to -1e9, and the softmax spreads its weight evenly over the keys it must not see instead of giving zero weights and a zero output (and -1e9 overflows to -inf in float16 anyway).",
         expect=[r"-1e9|large negative|constant|finite", r"fully masked|all False|uniform|zero weights"],
         bodies={"scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e9)
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """}),
    dict(kind="honest", name="movedim_last_axis",
         method="moves `dim` to the last axis, shifts by torch.max(...).values with torch.where for all -inf slices, normalises by a guarded sum and moves the axis back; attention through einsum and torch.where",
         bodies={"softmax": """
        z = x.movedim(dim, -1)
        top = torch.max(z, dim=-1, keepdim=True).values
        top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
        e = (z - top).exp()
        total = torch.sum(e, dim=-1, keepdim=True)
        safe = torch.where(total > 0, total, torch.ones_like(total))
        return (e / safe).movedim(-1, dim)
    """, "scaled_dot_product_attention": """
        d_k = q.shape[-1]
        scores = torch.einsum("...id,...jd->...ij", q, k) * (1.0 / math.sqrt(d_k))
        if mask is not None:
            scores = torch.where(mask, scores, torch.full((), float("-inf"), dtype=scores.dtype, device=scores.device))
        weights = softmax(scores, dim=-1)
        return torch.einsum("...ij,...jd->...id", weights, v), weights
    """}),
    dict(kind="honest", name="guarded_logsumexp",
         method="softmax as exp(x - logsumexp(x)) in at least float32, with all -inf slices replaced by zeros before the logsumexp and their result zeroed after; attention scales q first",
         bodies={"softmax": """
        empty = torch.isneginf(x).all(dim=dim, keepdim=True)
        # work in at least float32: a half-precision logsumexp of +-1e4 is rounded to a multiple of 64
        work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x
        x_safe = work.masked_fill(empty, 0.0)
        lse = torch.logsumexp(x_safe, dim=dim, keepdim=True)
        out = torch.exp(x_safe - lse)
        return out.masked_fill(empty, 0.0).to(x.dtype)
    """, "scaled_dot_product_attention": """
        q_scaled = q / math.sqrt(q.shape[-1])
        scores = torch.matmul(q_scaled, k.mT)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        weights = softmax(scores, -1)
        out = torch.matmul(weights, v)
        return out, weights
    """}),
]
