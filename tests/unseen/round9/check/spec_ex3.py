OK_SCALE = """
return scores / math.sqrt(d_k)
"""
OK_SCALED = """
return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
"""

VARIANTS = [
    dict(
        name="divide_by_dk", kind="wrong",
        mistake="scale_scores divides by d_k instead of √d_k (and scaled_scores reuses it)",
        ideal="The dot product's standard deviation is √d_k, not d_k: dividing by d_k squashes the scores towards 0 (uniform attention).\nDivide by math.sqrt(d_k).",
        expect=[r"sqrt|√|square root|standard deviation|root"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": """
            return scores / d_k
            """, "scaled_scores": """
            return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
            """},
    ),
    dict(
        name="size_dim1", kind="wrong",
        mistake="scaled_scores takes d_k = q.size(1): right for an unbatched (L, d_k) q, but for batched (B, L, d_k) it is L",
        ideal="d_k is the width of the queries, the LAST dim: q.size(-1). q.size(1) only means that for 2-D inputs;\nwith batch or head dims in front it picks a sequence length.",
        expect=[r"size\(-1\)|shape\[-1\]|last (dim|axis)|width|batch|leading|size\(1\)|wrong (dim|axis)|sequence length|L_q"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": OK_SCALE, "scaled_scores": """
            d_k = q.size(1)
            return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
            """},
    ),
    dict(
        name="inplace_divide", kind="wrong",
        mistake="scale_scores divides in place (scores /= √d_k) and returns the input, so the caller's scores change (and autograd errors on a leaf that requires grad)",
        ideal="`/=` edits the tensor you were given: the caller's raw scores are overwritten, and autograd refuses in-place ops on leaves it needs.\nReturn a new tensor: scores / math.sqrt(d_k).",
        expect=[r"in[- ]?place|/=|modif|mutat|overwr|chang\w* (the )?(input|caller)|new tensor"],
        reject=[r"\bdtype\b", r"sqrt\(d_k\) vs"],
        bodies={"scale_scores": """
            scores /= math.sqrt(d_k)
            return scores
            """, "scaled_scores": """
            return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
            """},
    ),
    dict(
        name="precedence", kind="wrong",
        mistake="writes scores / d_k ** 1/2, which Python reads as (scores / d_k) / 2, not scores / √d_k",
        ideal="Operator precedence: ** binds tighter than /, so scores / d_k ** 1/2 means (scores / d_k) / 2.\nWrite d_k ** 0.5 (or math.sqrt(d_k)).",
        expect=[r"precedence|parenthes|bracket|\*\* ?0\.5|\*\* ?\(1 ?/ ?2\)|sqrt|√|square root|divid\w* by (2|d_k)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": """
            return scores / d_k ** 1/2
            """, "scaled_scores": """
            d_k = q.size(-1)
            return scale_scores(q @ k.transpose(-2, -1), d_k)
            """},
    ),
    dict(
        name="integer_sqrt", kind="wrong",
        mistake="uses math.isqrt(d_k), the integer square root: exact for 16 or 64 but wrong for widths that are not perfect squares (3, 8, 32, 128)",
        ideal="math.isqrt rounds √d_k down to an int (isqrt(128) = 11, not 11.31), so scaling is off whenever d_k is not a perfect square.\nUse math.sqrt(d_k).",
        expect=[r"isqrt|integer|round|perfect square|truncat|floor|int\b"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": """
            return scores / math.isqrt(d_k)
            """, "scaled_scores": """
            return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
            """},
    ),
    dict(
        name="torch_tensor_copy", kind="wrong",
        mistake="makes the 'new tensor' with torch.tensor(scores / √d_k), which copies the values but detaches them from autograd",
        ideal="torch.tensor(t) builds a fresh leaf with no history, so no gradient flows back to the scores (PyTorch even warns about it).\nscores / math.sqrt(d_k) is already a new tensor; return it.",
        expect=[r"torch\.tensor|detach|gradient|grad|autograd|backward|history|graph"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": """
            out = torch.tensor(scores / math.sqrt(d_k), dtype=scores.dtype, device=scores.device)
            return out
            """, "scaled_scores": """
            return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
            """},
    ),
    dict(
        name="scale_both", kind="wrong",
        mistake="scaled_scores divides both q and k by √d_k before the product, so the scores end up divided by d_k",
        ideal="Scaling both factors multiplies the two divisors: (q/√d_k)·(k/√d_k) = q·k / d_k. Scale once (or each by d_k^-1/4).",
        expect=[r"both|twice|d_k\b.{0,30}(instead|not)|divid\w* by d_k|1/4|\^?-?0?\.25|once|too small|double"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": OK_SCALE, "scaled_scores": """
            s = math.sqrt(q.size(-1))
            return (q / s) @ (k / s).transpose(-2, -1)
            """},
    ),
    dict(
        name="width_from_scores", kind="wrong",
        mistake="scale_scores ignores its d_k argument and divides by √(scores.size(-1)), the number of keys L_k, not the query/key width",
        ideal="The last dim of the scores is L_k (how many keys), not d_k; the two only coincide by accident.\nUse the d_k you are given: scores / math.sqrt(d_k).",
        expect=[r"L_k|number of keys|sequence length|scores\.(size|shape)|argument|ignor|d_k (argument|parameter)|last dim"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"scale_scores": """
            return scores / math.sqrt(scores.size(-1))
            """, "scaled_scores": """
            d_k = q.size(-1)
            return scale_scores(q @ k.transpose(-2, -1), d_k)
            """},
    ),
    dict(
        name="split_scale_einsum", kind="honest",
        method="multiplies by d_k ** -0.5; scaled_scores scales q and k each by d_k ** -0.25 and uses einsum",
        bodies={"scale_scores": """
            return scores * d_k ** -0.5
            """, "scaled_scores": """
            c = q.size(-1) ** -0.25
            return torch.einsum("...id,...jd->...ij", q * c, k * c)
            """},
    ),
    dict(
        name="hf_query_first", kind="honest",
        method="Hugging Face style: torch.mul by 1/√d_k; scaled_scores scales the queries first, then torch.matmul with k.mT",
        bodies={"scale_scores": """
            inv = 1.0 / math.sqrt(d_k)
            return torch.mul(scores, inv)
            """, "scaled_scores": """
            query = q / math.sqrt(q.shape[-1])
            return torch.matmul(query, k.mT)
            """},
    ),
]
