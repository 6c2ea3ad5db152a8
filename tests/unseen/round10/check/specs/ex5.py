SDPA = """
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = softmax(scores, dim=-1)  # (..., L_q, L_k)
    return weights @ v, weights
"""

CORRECT = {
    "softmax": """
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))  # a row of -inf: shift by 0
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)  # all -inf: 0 / 1 = 0
    """,
    "scaled_dot_product_attention": SDPA,
}

WRONG = [
    dict(
        name="wrong_unstable",
        mistake="softmax exponentiates without subtracting the max: e^(1e4) overflows to inf and the row becomes inf/inf = NaN",
        ideal="softmax is not stable: it takes exp of the raw scores, so large entries (1e4, even ~90 in float32, ~12 in float16) overflow to inf and give NaN; subtract the slice's max first",
        expect=r"overflow|unstab|not (numerically )?stable|stabil|inf ?/ ?inf|large (score|value|input|entr)|1e4|huge|(without|no|never|missing|forg[eo]t( to)?) (subtract|shift)|(subtract|shift)(ing)? (by |of )?the max",
        reject=[r"fully masked|all.?-?inf", r"wrong (dim|ax)", r"in.?place", r"causal"],
    ),
    dict(
        name="wrong_nan_masked_rows",
        mistake="softmax subtracts the max without guarding a max of -inf, so a fully masked row gives (-inf) - (-inf) = NaN",
        ideal="for a slice that is entirely -inf the max is -inf and x - max is NaN: fully masked rows (a query that sees no key) come out NaN instead of zeros; shift by 0 where the max is -inf (and guard the zero sum)",
        expect=r"nan|fully masked|all.?-?inf|entirely -?inf|-inf ?- ?-?\(?-inf|no (visible )?key|sees no key|zero (weights|row)|0 ?/ ?0",
        reject=[r"overflows? (to )?inf|1e4|huge (score|value)s?|(does not|doesn't|never|forg[eo]t to) subtract", r"wrong (dim|ax)", r"in.?place", r"causal"],
    ),
    dict(
        name="wrong_ignores_dim",
        mistake="softmax always normalises along the last axis (dim=-1 hard-coded), ignoring its dim argument",
        ideal="softmax ignores `dim`: it always sums to 1 over the last axis, so softmax(x, dim=0) (or any dim other than the last) is wrong; attention, which uses dim=-1, still works",
        expect=r"\bdim\b|ax(is|es)|hard.?cod|ignor|last (dim|ax)|-1",
        reject=[r"overflow|1e4", r"nan|fully masked", r"in.?place", r"scal(e|ing)"],
    ),
    dict(
        name="wrong_nan_grad_masked",
        mistake="softmax patches the NaN of fully masked rows with torch.nan_to_num after the division: forward is zeros, but the backward pass still carries NaN",
        ideal="fully masked rows are fixed only in the forward pass (nan_to_num of a NaN computed from -inf - -inf): the outputs are zeros but their gradients are NaN (0 * NaN); avoid producing the NaN (shift by 0 where the max is -inf)",
        expect=r"gradient|grad\b|backward|autograd|nan_to_num|train",
        reject=[r"overflow|1e4", r"wrong (dim|ax)", r"in.?place", r"causal"],
    ),
    dict(
        name="wrong_scale_dv",
        mistake="scaled_dot_product_attention divides by sqrt(v.size(-1)) (d_v) instead of sqrt(q.size(-1)) (d_k)",
        ideal="the scale uses the value width d_v = v.size(-1) instead of the query/key width d_k = q.size(-1); right only when d_v == d_k",
        expect=r"d_v|v\.size|value(s)?'? (width|dim)|width of (the )?values|q\.size\(-1\)|instead of d_k|not d_k",
        reject=[r"overflow|1e4", r"causal", r"in.?place", r"nan"],
    ),
    dict(
        name="wrong_default_causal",
        mistake="scaled_dot_product_attention adds a causal mask when mask is None; the docstring says no mask is added (every query reads every key)",
        ideal="with mask=None the function applies a causal (lower-triangular) mask, but the contract is that None means every query reads every key; outputs differ for every query but the last",
        expect=r"causal|tril|mask.{0,30}none|none.{0,30}mask|default|every key|future|lower.?triang",
        reject=[r"overflow|1e4", r"scal(e|ing)|sqrt", r"in.?place", r"wrong (dim|ax)"],
    ),
    dict(
        name="wrong_inplace_shift",
        mistake="softmax subtracts the max from its input in place (x -= m), changing the caller's tensor (and raising for a leaf that requires grad)",
        ideal="x -= max edits the input in place: the caller's scores are shifted after the call (not left unchanged), and autograd rejects it on a leaf that requires grad; use x - m",
        expect=r"in.?place|-=|sub_|modif|mutat|overwrit|chang(e|es|ed) (the )?(input|caller|x\b)|unchanged|leaf",
        reject=[r"unstable|not (numerically )?stable|(does not|doesn't|never|forg[eo]t to) subtract", r"wrong (dim|ax)", r"causal", r"nan"],
    ),
    dict(
        name="wrong_max_no_keepdim",
        mistake="softmax takes x.amax(dim) without keepdim=True, so the max broadcasts along the wrong axis: crashes for non-square slices, wrong values for square ones (right for 1-D)",
        ideal="amax without keepdim drops the reduced dim, so x - m subtracts the maxima along the wrong axis (each column's entry instead of each row's): square inputs give wrong weights, other shapes raise; use keepdim=True",
        expect=r"keepdim|broadcast|shape|wrong (ax|dim)|unsqueeze|square",
        reject=[r"overflow|1e4", r"causal", r"in.?place", r"nan"],
    ),
]

BODIES = {
    "wrong_unstable": {"softmax": """
        e = torch.exp(x)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)  # all -inf: 0 / 1 = 0
    """},
    "wrong_nan_masked_rows": {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """},
    "wrong_ignores_dim": {"softmax": """
        m = x.amax(dim=-1, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(x - m)
        s = e.sum(dim=-1, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """},
    "wrong_nan_grad_masked": {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        e = torch.exp(x - m)
        p = e / e.sum(dim=dim, keepdim=True)
        return torch.nan_to_num(p, nan=0.0)  # fully masked rows: NaN -> 0
    """},
    "wrong_scale_dv": {"scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """},
    "wrong_default_causal": {"scaled_dot_product_attention": """
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        if mask is None:
            L_q, L_k = scores.shape[-2:]
            mask = torch.tril(torch.ones(L_q, L_k, dtype=torch.bool, device=q.device))
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """},
    "wrong_inplace_shift": {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        x -= m  # shift for stability
        e = torch.exp(x)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """},
    "wrong_max_no_keepdim": {"softmax": """
        m = x.amax(dim=dim)
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """},
}

HONEST = [
    dict(
        name="honest_logsumexp",
        method="softmax as exp(x - logsumexp(x)) with fully masked slices swapped for zeros before logsumexp; attention with einsum and torch.where",
        bodies={
            "softmax": """
                empty = torch.isneginf(x).all(dim=dim, keepdim=True)  # slices that are all -inf
                safe = x.masked_fill(empty, 0.0)  # keep NaN out of forward AND backward
                lse = torch.logsumexp(safe, dim=dim, keepdim=True)
                return torch.exp(safe - lse).masked_fill(empty, 0.0)
            """,
            "scaled_dot_product_attention": """
                scores = torch.einsum("...id,...jd->...ij", q, k) * q.shape[-1] ** -0.5
                if mask is not None:
                    scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
                weights = softmax(scores, dim=-1)
                out = torch.einsum("...ij,...jd->...id", weights, v)
                return out, weights
            """,
        },
    ),
    dict(
        name="honest_movedim_reciprocal",
        method="softmax moves `dim` last, shifts by a guarded max and divides by a guarded sum; attention pre-scales q and masks with masked_fill",
        bodies={
            "softmax": """
                xt = x.movedim(dim, -1)
                m = xt.amax(-1, keepdim=True)
                m = torch.where(m == float("-inf"), torch.zeros_like(m), m)
                p = torch.exp(xt - m)
                z = p.sum(-1, keepdim=True)
                z = torch.where(z > 0, z, torch.ones_like(z))
                return (p / z).movedim(-1, dim)
            """,
            "scaled_dot_product_attention": """
                q = q / math.sqrt(q.size(-1))
                scores = torch.matmul(q, k.mT)
                if mask is not None:
                    scores = scores.masked_fill(mask.logical_not(), -math.inf)
                weights = softmax(scores)
                return torch.matmul(weights, v), weights
            """,
        },
    ),
]
