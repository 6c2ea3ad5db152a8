CORRECT = {
    "scale_scores": """
        return scores / math.sqrt(d_k)
    """,
    "scaled_scores": """
        return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
    """,
}

WRONG = [
    dict(
        name="wrong_scale_dk",
        mistake="scale_scores divides by d_k instead of sqrt(d_k) (and so does scaled_scores, which calls it)",
        ideal="the scores are divided by d_k, not √d_k: too small by a further factor √d_k (right only at d_k = 1), so the spread shrinks to 1/√d_k instead of 1",
        expect=r"divid(e|es|ed|ing) by d_k\b(?! ?\*)|1 ?/ ?d_k|by d_k (instead|rather|not)|instead of (by )?(sqrt|√)|not (by )?(the )?(sqrt|√|square root)|missing (the )?(sqrt|√|root)|without (the )?(sqrt|√|root)|too small by",
        reject=[r"transpos", r"dtype", r"in.?place", r"multipl(y|ies|ied) (by|with)"],
    ),
    dict(
        name="wrong_multiply",
        mistake="scale_scores multiplies by sqrt(d_k) instead of dividing (scaled_scores inherits it)",
        ideal="scores are multiplied by √d_k instead of divided: the spread grows to d_k instead of 1 (right only at d_k = 1)",
        expect=r"multipl|instead of divid|reciprocal|inverse|1 ?/ ?√|1 ?/ ?sqrt|too (large|big)|grows?",
        reject=[r"transpos", r"dtype", r"in.?place", r"d_k instead of (sqrt|√)"],
    ),
    dict(
        name="wrong_dk_from_length",
        mistake="scaled_scores takes d_k as k.size(-2) (the number of keys L_k) instead of q.size(-1)",
        ideal="scaled_scores uses the number of keys L_k = k.size(-2) as d_k; the width is q.size(-1); right only when L_k == d_k, so it shows when the sequence length differs from the head width",
        expect=r"size\(-2\)|L_k|length|number of (keys|tokens)|seq(uence)? len|q\.size\(-1\)|wrong (dim|ax)|d_k.{0,40}(width|last dim)",
        reject=[r"transpos(e|ed)? (the )?wrong", r"dtype", r"in.?place", r"multipl"],
    ),
    dict(
        name="wrong_inplace_div",
        mistake="scale_scores divides in place (scores /= sqrt(d_k)) and returns the caller's tensor",
        ideal="scale_scores uses /= on its input: the caller's scores are overwritten (and the 'new tensor' is the input itself); on a leaf that requires grad it raises; return scores / √d_k instead",
        expect=r"in.?place|/=|div_|modif|mutat|overwrit|chang(e|es|ed) (the )?(input|caller|scores)|same (tensor|object)|new tensor|alias",
        reject=[r"transpos", r"dtype", r"sqrt.{0,20}(missing|instead)"],
    ),
    dict(
        name="wrong_float32_scale_tensor",
        mistake="scale_scores multiplies by a scale made as torch.rsqrt(torch.tensor([d_k], dtype=torch.float32)): a float32 CPU tensor, so float64 scores lose precision and CUDA scores crash (device mismatch)",
        ideal="the factor 1/√d_k is a 1-element float32 tensor on the CPU made without device=/matching dtype: in float64 it is only float32-accurate (relative error ~1e-8), and with CUDA scores the CPU tensor raises a device mismatch; use math.sqrt or a tensor in scores' dtype and device",
        expect=r"float32|precision|dtype|device|cpu|cuda|torch\.tensor|rsqrt|accura|round|tensor.{0,30}(scale|factor)",
        reject=[r"transpos", r"in.?place", r"d_k instead of", r"multipl(y|ies) instead"],
    ),
    dict(
        name="wrong_precedence_half",
        mistake="scale_scores computes the root as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2 (right only at d_k = 4)",
        ideal="operator precedence: d_k ** 1/2 is (d_k**1)/2 = d_k/2, not √d_k; it coincides at d_k = 4 and is wrong at every other width; write d_k ** 0.5 or math.sqrt(d_k)",
        expect=r"preceden|\*\* ?1 ?/ ?2|d_k ?/ ?2|half|parenthes|brackets|\*\* ?0\.5|operator|divid(e|es|ed|ing)? by 2|instead of (the )?(square )?root",
        reject=[r"transpos", r"dtype", r"in.?place"],
    ),
    dict(
        name="wrong_isqrt",
        mistake="scaled_scores divides by math.isqrt(d_k), the integer square root, so widths that are not perfect squares (3, 8, 32, ...) get the wrong scale",
        ideal="math.isqrt rounds the root down to an integer: right for d_k = 1, 4, 16, 64 but wrong for d_k = 8, 32, 3, ...; use math.sqrt",
        expect=r"isqrt|integer|round(ed|s|ing)?|floor|perfect square|int\b|truncat",
        reject=[r"transpos", r"dtype", r"in.?place", r"multipl"],
    ),
    dict(
        name="wrong_alias_when_dk1",
        mistake="scale_scores returns the input tensor itself when d_k == 1 (shortcut 'nothing to divide'), breaking the 'returns a new tensor' rule",
        ideal="for d_k == 1 scale_scores returns `scores` itself, not a new tensor: the result aliases the caller's scores, so an in-place edit of one (e.g. masked_fill_) changes the other; always return scores / √d_k",
        expect=r"alias|same (tensor|object)|not a new tensor|new tensor.{0,30}(d_k|1\b)|returns? (the )?(input|scores|its input) itself|shortcut|early return|special.?case",
        reject=[r"transpos", r"dtype", r"sqrt.{0,20}(missing|instead)", r"multipl"],
    ),
]

BODIES = {
    "wrong_scale_dk": {"scale_scores": """
        return scores / d_k
    """},
    "wrong_multiply": {"scale_scores": """
        return scores * math.sqrt(d_k)
    """},
    "wrong_dk_from_length": {"scaled_scores": """
        s = q @ k.transpose(-2, -1)  # (..., L_q, L_k)
        d_k = k.size(-2)
        return scale_scores(s, d_k)
    """},
    "wrong_inplace_div": {"scale_scores": """
        scores /= math.sqrt(d_k)
        return scores
    """},
    "wrong_float32_scale_tensor": {"scale_scores": """
        scale = torch.rsqrt(torch.tensor([d_k], dtype=torch.float32))  # 1 / sqrt(d_k)
        return scores * scale
    """},
    "wrong_precedence_half": {"scale_scores": """
        return scores / (d_k ** 1/2)
    """},
    "wrong_isqrt": {"scaled_scores": """
        return (q @ k.transpose(-2, -1)) / math.isqrt(q.size(-1))
    """},
    "wrong_alias_when_dk1": {"scale_scores": """
        if d_k == 1:
            return scores  # sqrt(1) = 1: nothing to divide
        return scores / math.sqrt(d_k)
    """},
}

HONEST = [
    dict(
        name="honest_split_scale",
        method="multiplies by d_k ** -0.5; scaled_scores splits the factor as d_k^(-1/4) on each of q and k before an einsum",
        bodies={
            "scale_scores": """
                return scores * d_k ** -0.5
            """,
            "scaled_scores": """
                d_k = q.size(-1)
                f = d_k ** -0.25  # (q f)(k f)^T = Q K^T / sqrt(d_k)
                return torch.einsum("...id,...jd->...ij", q * f, k * f)
            """,
        },
    ),
    dict(
        name="honest_prescale_q",
        method="torch.div for scale_scores; scaled_scores scales the queries first, (Q / sqrt(d_k)) K^T, with torch.matmul and .mT",
        bodies={
            "scale_scores": """
                return torch.div(scores, math.sqrt(d_k))
            """,
            "scaled_scores": """
                return torch.matmul(q / math.sqrt(q.shape[-1]), k.mT)
            """,
        },
    ),
]
