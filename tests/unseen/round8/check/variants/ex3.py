DEFAULT = {
    "scale_scores": """
        return scores / math.sqrt(d_k)
    """,
    "scaled_scores": """
        return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
    """,
}

VARIANTS = [
    dict(kind="wrong", name="divide_inplace",
         mistake="scale_scores divides with scores.div_(...), in place, and returns the caller's tensor",
         ideal="div_ is in-place: it overwrites the caller's scores with the scaled ones and returns that same tensor, while the contract asks for a new tensor and the input untouched; use scores / math.sqrt(d_k).",
         expect=[r"div_|in[- ]place|/=", r"input|caller|new tensor|overwrit"],
         bodies={"scale_scores": """
        return scores.div_(math.sqrt(d_k))
    """}),
    dict(kind="wrong", name="integer_sqrt",
         mistake="scale_scores divides by math.isqrt(d_k), an integer square root, which is only right for perfect squares",
         ideal="math.isqrt rounds √d_k down to an integer (isqrt(8) = 2, not 2.83), so every d_k that is not a perfect square is scaled by the wrong factor; use math.sqrt.",
         expect=[r"isqrt|integer|round", r"perfect square|not a square|math\.sqrt"],
         bodies={"scale_scores": """
        return scores / math.isqrt(d_k)
    """}),
    dict(kind="wrong", name="scale_q_and_k",
         mistake="scaled_scores divides BOTH q and k by sqrt(d_k) before the product, which scales the scores by 1/d_k",
         ideal="Dividing q and k each by √d_k divides their product by √d_k·√d_k = d_k, twice too much; scale only one side (or each by d_k^(1/4)).",
         expect=[r"both|q and k|each", r"d_k\b|twice|1/d_k|d_k\^\(1/4\)|fourth root"],
         bodies={"scaled_scores": """
        s = math.sqrt(q.size(-1))
        return (q / s) @ (k / s).transpose(-2, -1)
    """}),
    dict(kind="wrong", name="ignores_d_k_argument",
         mistake="scale_scores ignores its d_k argument and uses the last dim of scores (the number of keys L_k) instead",
         ideal="scale_scores uses scores.size(-1), which is L_k, the number of keys, not the width d_k passed in; the two differ in general, so the scale is wrong whenever L_k != d_k.",
         expect=[r"L_k|number of keys|size\(-1\)|shape\[-1\]", r"d_k|argument|ignor"],
         bodies={"scale_scores": """
        return scores / math.sqrt(scores.size(-1))
    """}),
    dict(kind="wrong", name="detach_clone_copy",
         mistake="makes the 'new tensor' with scores.detach().clone() before dividing, which cuts the graph",
         ideal="scores.detach().clone() gives a new tensor but one with no autograd history, so no gradient flows back to the scores (or q and k); a plain scores / √d_k is already a new tensor.",
         expect=[r"detach", r"gradient|autograd|graph|train"],
         bodies={"scale_scores": """
        out = scores.detach().clone()
        return out / math.sqrt(d_k)
    """}),
    dict(kind="wrong", name="power_precedence",
         mistake="writes d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2",
         ideal="Operator precedence: d_k ** 1/2 is (d_k ** 1) / 2, i.e. the scores are divided by d_k/2 instead of √d_k (equal only at d_k = 4); write d_k ** 0.5 or math.sqrt(d_k).",
         expect=[r"precedence|\*\* ?1/2|d_k ?/ ?2", r"√d_k|sqrt|\*\* ?0\.5|square root"],
         bodies={"scale_scores": """
        return scores / (d_k ** 1/2)
    """}),
    dict(kind="wrong", name="width_from_dim1",
         mistake="scaled_scores takes d_k as q.shape[1], which is the width only for unbatched (L_q, d_k) queries",
         ideal="q.shape[1] counts from the front: for an unbatched q it is d_k, but with batch or head dims it is L_q or H, so the scale is wrong; d_k is the last dim, q.size(-1).",
         expect=[r"shape\[1\]|dim 1|from the front", r"size\(-1\)|last dim|batch|leading"],
         bodies={"scaled_scores": """
        d_k = q.shape[1]
        return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
    """}),
    dict(kind="wrong", name="float32_scale_tensor",
         mistake="scale_scores builds the scale as torch.tensor(d_k).sqrt(), a float32 tensor, so float64 scores are divided by a float32-rounded sqrt(d_k)",
         ideal="torch.tensor(d_k).sqrt() is computed in float32 (the default dtype), so √d_k is only accurate to about 1e-7 and float64 scores lose precision; use the Python float math.sqrt(d_k).",
         expect=[r"float32|default dtype|precision", r"torch\.tensor|tensor\(d_k\)|math\.sqrt"],
         bodies={"scale_scores": """
        scale = torch.tensor(d_k).sqrt()
        return scores / scale
    """}),
    dict(kind="honest", name="rsqrt_multiply",
         method="multiplies by the reciprocal d_k ** -0.5 (torch.mul), and scaled_scores scales the queries before the product",
         bodies={"scale_scores": """
        return torch.mul(scores, d_k ** -0.5)
    """, "scaled_scores": """
        q_scaled = q * (1.0 / math.sqrt(q.shape[-1]))
        return torch.matmul(q_scaled, k.mT)
    """}),
    dict(kind="honest", name="fourth_root_both_sides",
         method="torch.div with the math.sqrt factor; scaled_scores splits the scale as d_k^(-1/4) on each of q and k, then einsum",
         bodies={"scale_scores": """
        return torch.div(scores, math.sqrt(d_k))
    """, "scaled_scores": """
        c = q.shape[-1] ** -0.25
        return torch.einsum("...qd,...kd->...qk", q * c, k * c)
    """}),
]
