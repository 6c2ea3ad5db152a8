STUB = "exercise3_scaling.py"

SCALE_OK = """
return scores / math.sqrt(d_k)
"""
SCALED_OK = """
return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
"""

FILES = [
    dict(name="wrong_divide_by_dk", kind="wrong",
         mistake="scale_scores divides by d_k instead of √d_k, so scores shrink far too much (the softmax goes nearly uniform)",
         ideal="scale_scores: the variance of a dot product is d_k, so divide by its standard deviation √d_k (math.sqrt(d_k)), not by d_k",
         expect=r"√|sqrt|square root|standard deviation|too small|divid(es|ed|ing)? by d_k",
         reject=[r"dtype|device|transpos|in-?place|mask"],
         bodies=["""
return scores / d_k
""", SCALED_OK]),
    dict(name="wrong_multiply_sqrt", kind="wrong",
         mistake="scale_scores multiplies by √d_k instead of dividing, making wide scores even wider",
         ideal="scale_scores: divide the scores by √d_k; multiplying by it spreads them out further (a harder argmax) instead of bringing their spread back to 1",
         expect=r"divid|multipl|√|sqrt|inverse|reciprocal",
         reject=[r"dtype|device|transpos|in-?place|mask"],
         bodies=["""
return scores * math.sqrt(d_k)
""", SCALED_OK]),
    dict(name="wrong_inplace_divide", kind="wrong",
         mistake="scale_scores divides in place (scores /= √d_k) and returns the same tensor, so the caller's raw scores are changed (and it raises on a leaf that requires grad)",
         ideal="scale_scores: /= edits the caller's scores in place; the docstring asks for a new tensor with scores left untouched: return scores / math.sqrt(d_k)",
         expect=r"in-?place|/=|new tensor|modif|mutat|chang|untouched|leaf",
         reject=[r"dtype|device|transpos|√d_k is wrong|factor"],
         bodies=["""
scores /= math.sqrt(d_k)
return scores
""", SCALED_OK]),
    dict(name="wrong_dk_from_key_count", kind="wrong",
         mistake="scaled_scores takes d_k = k.size(-2), the number of keys L_k, instead of the width q.size(-1); right only when L_k == d_k",
         ideal="scaled_scores: d_k is the query/key width q.size(-1), not the number of keys k.size(-2); the scale must not depend on the sequence length",
         expect=r"size\(-1\)|width|L_k|number of keys|sequence length|size\(-2\)|wrong (dim|axis)",
         reject=[r"dtype|device|in-?place|transpos"],
         bodies=[SCALE_OK, """
d_k = k.size(-2)
return scale_scores(q @ k.transpose(-2, -1), d_k)
"""]),
    dict(name="wrong_sqrt_tensor_promotes", kind="wrong",
         mistake="scale_scores divides by torch.sqrt(torch.tensor([float(d_k)])), a 1-element float32 CPU tensor: float16/bfloat16 scores come back float32, and GPU scores fail on the device mismatch",
         ideal="scale_scores: a 1-D torch.tensor([...]) joins type promotion (half becomes float32) and lives on the CPU; divide by the Python float math.sqrt(d_k) to keep the scores' dtype and device",
         expect=r"dtype|float32|float16|bfloat16|half|device|promot|torch\.tensor",
         reject=[r"transpos|in-?place|value of the \bscale\b|wrong (\bscale\b|factor)"],
         bodies=["""
return scores / torch.sqrt(torch.tensor([float(d_k)]))
""", SCALED_OK]),
    dict(name="wrong_power_precedence", kind="wrong",
         mistake="writes the scale as d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2, so it divides by d_k/2 (equal to √d_k only at d_k = 4)",
         ideal="scale_scores: ** binds tighter than /, so d_k ** 1/2 is d_k/2; write d_k ** 0.5 or math.sqrt(d_k)",
         expect=r"\*\* ?1 ?/ ?2|precedence|d_k ?/ ?2|\*\* ?0\.5|√|sqrt|parenthes",
         reject=[r"dtype|device|in-?place|transpos"],
         bodies=["""
scale = d_k ** 1/2
return scores / scale
""", SCALED_OK]),
    dict(name="wrong_integer_sqrt", kind="wrong",
         mistake="scale_scores divides by math.isqrt(d_k), the integer (floor) square root: right for perfect squares like 16 or 64, wrong for d_k = 8 or 3",
         ideal="scale_scores: math.isqrt rounds √d_k down to an integer (isqrt(8) = 2, not 2.83); use math.sqrt(d_k)",
         expect=r"isqrt|integer|floor|round|math\.sqrt|non-square|d_k ?= ?(8|3|2)",
         reject=[r"dtype|device|in-?place|transpos"],
         bodies=["""
return scores / math.isqrt(d_k)
""", SCALED_OK]),
    dict(name="wrong_torch_tensor_copy", kind="wrong",
         mistake="scale_scores wraps the result in torch.tensor(...) to return 'a new tensor', which copies it out of the autograd graph: values right, no gradient reaches the scores",
         ideal="scale_scores: torch.tensor(t) detaches its copy, so nothing trains through it; scores / math.sqrt(d_k) already is a new tensor",
         expect=r"grad|autograd|detach|torch\.tensor|graph|train",
         reject=[r"dtype|device|transpos|√d_k is wrong|in-?place"],
         bodies=["""
return torch.tensor(scores / math.sqrt(d_k))
""", SCALED_OK]),
    dict(name="honest_split_scale", kind="honest",
         method="splits the scale symmetrically: q and k are each multiplied by d_k^(-1/4) before the product (as some fused kernels do); scale_scores multiplies by the reciprocal with torch.mul",
         bodies=["""
inv_root = 1.0 / math.sqrt(d_k)
return torch.mul(scores, inv_root)
""", """
d_k = q.shape[-1]
quarter = d_k ** -0.25
return (q * quarter) @ (k * quarter).transpose(-2, -1)
"""]),
    dict(name="honest_pow_einsum", kind="honest",
         method="scale_scores via math.pow(d_k, -0.5); scaled_scores via torch.einsum then scale_scores",
         bodies=["""
return scores * math.pow(d_k, -0.5)
""", """
raw = torch.einsum("...id,...jd->...ij", q, k)
return scale_scores(raw, q.shape[-1])
"""]),
]
