from build import H, W

BASE = {
    "scale_scores": """
        return scores / math.sqrt(d_k)
    """,
    "scaled_scores": """
        d_k = q.size(-1)
        return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)  # (..., L_q, L_k)
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)|float64 (result|output)"
NOT_INPLACE = r"in.place"

FILES = [
    W("pow_precedence",
      "scale_scores divides by (d_k ** 1/2), which Python reads as (d_k ** 1) / 2 = d_k / 2, not √d_k (the same only at d_k = 4)",
      "scale_scores divides by (d_k ** 1/2); ** binds tighter than /, so that is (d_k ** 1) / 2 = d_k / 2, not the square root (they agree only at d_k = 4); write d_k ** 0.5 or math.sqrt(d_k).",
      [r"scale_scores", r"\*\* ?1 ?/ ?2|precedence|d_k ?/ ?2|half|square root|sqrt|√|\*\* ?0\.5"],
      [NOT_DTYPE, NOT_INPLACE, r"floor"],
      {"scale_scores": """
        return scores / (d_k ** 1/2)  # divide by the square root of d_k
    """}),
    W("floor_division",
      "scale_scores uses floor division //, so every scaled score is rounded down to a whole number (and the gradient is zero)",
      "scale_scores divides with //, Python's floor division, so every scaled score is rounded down to a whole number (wrong values, and a zero gradient that stops training); use true division scores / math.sqrt(d_k).",
      [r"scale_scores", r"//|floor|round(ed|s|ing)? down|integer|whole number|true division"],
      [NOT_DTYPE, NOT_INPLACE, r"precedence"],
      {"scale_scores": """
        return scores // math.sqrt(d_k)
    """}),
    W("divides_in_place",
      "scale_scores divides the caller's scores in place (scores /= √d_k) and returns them, instead of a new tensor",
      "scale_scores does scores /= math.sqrt(d_k), an in-place division, so the caller's scores tensor is changed (and one that requires grad raises); the docstring asks for a new tensor: return scores / math.sqrt(d_k).",
      [r"scale_scores", r"/=|in.place|in place|div_", r"caller|input|chang|modif|mutat|new tensor|leaf"],
      [NOT_DTYPE, r"floor", r"precedence"],
      {"scale_scores": """
        scores /= math.sqrt(d_k)
        return scores
    """}),
    W("dk_from_score_width",
      "scaled_scores passes scores.size(-1), the number of keys L_k, as d_k",
      "scaled_scores calls scale_scores(scores, scores.size(-1)); the last dim of the scores is the number of keys L_k, not the query/key width, so the division is by √L_k (right only when L_k == d_k); d_k is q.size(-1).",
      [r"scaled_scores", r"L_k|number of keys|scores\.size\(-1\)|size\(-1\)|q\.size\(-1\)|width|d_k"],
      [NOT_DTYPE, NOT_INPLACE, r"floor"],
      {"scaled_scores": """
        scores = q @ k.transpose(-2, -1)
        return scale_scores(scores, scores.size(-1))
    """}),
    W("dk_from_shape_1",
      "scaled_scores reads d_k as q.shape[1], which is the width only for unbatched (L_q, d_k) queries: with batch/head dims it is L_q or H",
      "scaled_scores takes d_k = q.shape[1], which is the query width only for an unbatched (L_q, d_k) q; with a batch (or batch and head) dim in front, shape[1] is L_q (or H), so the scores are scaled by the wrong number; use q.size(-1).",
      [r"scaled_scores", r"shape\[1\]|size\(1\)|axis 1|dim 1|q\.size\(-1\)|last dim|batch|head|L_q"],
      [NOT_DTYPE, NOT_INPLACE, r"floor"],
      {"scaled_scores": """
        d_k = q.shape[1]  # q is (L_q, d_k)
        return (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
    """}),
    W("k_t_on_batched",
      "scaled_scores transposes the keys with k.t(), which only accepts tensors of at most 2 dims: every batched or multi-head input raises",
      "scaled_scores uses k.t(), and Tensor.t() only accepts tensors with at most 2 dims, so every batched (3-D) or multi-head (4-D) input raises; transpose the last two dims with k.transpose(-2, -1).",
      [r"scaled_scores", r"\.t\(\)|<= ?2 dim|at most 2|2-?D|batched|4-?D|3-?D|transpose\(-2, ?-1\)|last two"],
      [NOT_DTYPE, NOT_INPLACE, r"floor"],
      {"scaled_scores": """
        d_k = q.size(-1)
        return (q @ k.t()) / math.sqrt(d_k)
    """}),
    W("upcasts_to_float64",
      "scale_scores converts the scores to float64 (.double()) 'for precision' and returns float64 for float32/float16/bfloat16 scores",
      "scale_scores computes scores.double() / math.sqrt(d_k) and returns that float64 tensor, so float32, float16 and bfloat16 scores come back as float64; the result must keep the scores' dtype (dividing by a Python float already keeps it).",
      [r"scale_scores", r"\.double\(\)|float64|double|dtype|precision"],
      [NOT_INPLACE, r"floor", r"precedence"],
      {"scale_scores": """
        return scores.double() / math.sqrt(d_k)  # divide in full precision
    """}),
    W("scale_tensor_without_device",
      "scale_scores builds the scale as torch.tensor([d_k]) without device=: a 1-element CPU tensor that cannot divide scores on a GPU",
      "scale_scores makes the scale with torch.sqrt(torch.tensor([d_k], dtype=scores.dtype)), a 1-element tensor created on the CPU because no device= is given; dividing GPU scores by it raises a device mismatch (a 1-D tensor is not a scalar); use math.sqrt(d_k) or pass device=scores.device.",
      [r"scale_scores", r"device|cpu|torch\.tensor", r"device|cuda|gpu|mismatch|same device"],
      [r"floor", r"precedence", NOT_INPLACE],
      {"scale_scores": """
        scale = torch.sqrt(torch.tensor([d_k], dtype=scores.dtype))
        return scores / scale
    """}),
    W("scaled_twice",
      "scaled_scores divides q by √d_k and then also calls scale_scores on the product, so the scores are divided by d_k",
      "scaled_scores first divides q by √d_k and then passes the product to scale_scores, which divides by √d_k again, so the result is Q K^T / d_k instead of Q K^T / √d_k; scale once (either q or the scores).",
      [r"scaled_scores", r"twice|two times|again|double|d_k\b(?! *\*\*)|once"],
      [NOT_DTYPE, NOT_INPLACE, r"floor"],
      {"scaled_scores": """
        d_k = q.size(-1)
        q = q / math.sqrt(d_k)  # scale the queries first: L_q * d_k divisions instead of L_q * L_k
        return scale_scores(q @ k.transpose(-2, -1), d_k)
    """}),
    H("lucidrains_scale_queries",
      "ported from lucidrains' attention modules: scale = d ** -0.5 multiplies q before einsum('... i d, ... j d -> ... i j'); scale_scores multiplies by d_k ** -0.5",
      {"scale_scores": """
        return scores * d_k ** -0.5
    """,
       "scaled_scores": """
        scale = q.shape[-1] ** -0.5
        q = q * scale
        return torch.einsum("... i d, ... j d -> ... i j", q, k)
    """}),
    H("openai_quarter_power",
      "ported from OpenAI's improved-diffusion QKVAttention: q and k are each scaled by d_k ** -1/4 before the product (safer in float16); scale_scores uses torch.div",
      {"scale_scores": """
        return torch.div(scores, math.sqrt(d_k))
    """,
       "scaled_scores": """
        scale = 1 / math.sqrt(math.sqrt(q.shape[-1]))  # (q / d^(1/4)) . (k / d^(1/4)) = q . k / sqrt(d)
        return (q * scale) @ (k * scale).transpose(-2, -1)
    """}),
]
