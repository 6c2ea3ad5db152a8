EX = 3
STUB = "exercise3_scaling.py"
CORRECT = {
    "scale_scores": """
return scores / math.sqrt(d_k)
""",
    "scaled_scores": """
d_k = q.size(-1)
return scale_scores(q @ k.transpose(-2, -1), d_k)
""",
}
VARIANTS = [
    dict(slug="uses_lk", kind="wrong",
         mistake="scale_scores ignores its d_k argument and divides by sqrt(scores.size(-1)), the number of keys L_k",
         ideal="scale_scores divides by the square root of scores.size(-1), which is the number of keys L_k, instead of the d_k it is given, so it is only right when L_k equals d_k.",
         expect=[r"l_k|number of keys|size\(-1\)|last dim|ignor", r"d_k"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"scale_scores": """
return scores / math.sqrt(scores.size(-1))
"""}),
    dict(slug="shape1_as_dk", kind="wrong",
         mistake="scaled_scores reads d_k as q.shape[1], which is d_k only for 2-D queries (for batched q it is L_q or the head count)",
         ideal="scaled_scores takes d_k = q.shape[1], which is only the query width for 2-D inputs; with batch or head dims in front it is another size (L_q or H), so the scale is wrong; d_k is q.size(-1).",
         expect=[r"shape\[1\]|size\(1\)|dim 1|second dim|wrong (dim|axis|size)", r"batch|head|leading|size\(-1\)|last"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"scaled_scores": """
d_k = q.shape[1]
return scale_scores(q @ k.transpose(-2, -1), d_k)
"""}),
    dict(slug="inplace_divide", kind="wrong",
         mistake="scale_scores divides in place (scores /= ...), so the caller's raw scores are overwritten",
         ideal="scale_scores uses the in-place scores /= sqrt(d_k), which overwrites the caller's raw scores instead of returning a new tensor.",
         expect=[r"in[- ]?place|/=|div_|overwrit|modif|mutat", r"input|caller|scores|new tensor"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"wrong device|device (mismatch|is wrong)|made on the cpu|cuda|gpu"],
         bodies={"scale_scores": """
scores /= math.sqrt(d_k)
return scores
"""}),
    dict(slug="prescale_q_inplace", kind="wrong",
         mistake="scaled_scores pre-scales the queries in place (q.div_(sqrt(d_k))) before the product, changing the caller's q",
         ideal="scaled_scores scales the queries with the in-place q.div_(...) before the product, so the values are right but the caller's q is divided by sqrt(d_k) (inputs must be unchanged, and autograd may refuse it).",
         expect=[r"in[- ]?place|div_|modif|mutat|overwrit", r"\bq\b|quer|input|caller"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"d_k = .*l_k"],
         bodies={"scaled_scores": """
d_k = q.size(-1)
q = q.div_(math.sqrt(d_k))  # scale the queries first: fewer numbers to divide
return q @ k.transpose(-2, -1)
"""}),
    dict(slug="tensor_scale_promotes", kind="wrong",
         mistake="scale_scores divides by torch.tensor([sqrt(d_k)]), a 1-element float32 CPU tensor, which promotes float16/bfloat16 scores to float32 (and is on the CPU)",
         ideal="scale_scores divides by a one-element float32 tensor made with torch.tensor([...]), which type-promotes float16/bfloat16 scores to float32 (and lives on the CPU, clashing with GPU scores), so the dtype is not preserved.",
         expect=[r"dtype|float32|float16|bfloat16|half|promot|device"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"l_k"],
         bodies={"scale_scores": """
return scores / torch.tensor([math.sqrt(d_k)])
"""}),
    dict(slug="precedence", kind="wrong",
         mistake="writes scores / d_k ** 1/2, which Python parses as (scores / d_k) / 2, not a division by sqrt(d_k)",
         ideal="scale_scores writes scores / d_k ** 1/2, which by operator precedence is scores / d_k / 2 rather than scores / sqrt(d_k).",
         expect=[r"preceden|parse|\*\* ?1/2|d_k\s*/\s*2|parenthes|bracket"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"scale_scores": """
return scores / d_k ** 1/2
"""}),
    dict(slug="int_sqrt", kind="wrong",
         mistake="scale_scores divides by int(math.sqrt(d_k)), the floor of the root: right for perfect squares (64, 16, 4) only, wrong at d_k = 3",
         ideal="scale_scores divides by int(math.sqrt(d_k)), which floors the square root, so it is right only when d_k is a perfect square (64, 16) and wrong for e.g. d_k = 3 (divides by 1 instead of 1.732).",
         expect=[r"int\(|floor|truncat|round|integer", r"perfect square|non-?square|d_k\s*=\s*3|sqrt|root"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"scale_scores": """
return scores / int(math.sqrt(d_k))
"""}),
    dict(slug="no_grad_decorator", kind="wrong",
         mistake="scale_scores runs under torch.no_grad() ('scaling has no parameters'), so no gradient flows back through the scaling",
         ideal="scale_scores computes the division inside torch.no_grad(), so the result has no autograd history and no gradient flows back to the scores, q or k (forward values are right).",
         expect=[r"no_grad|autograd|graph|detach", r"grad"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"scale_scores": """
with torch.no_grad():  # a constant factor: nothing to learn here
    return scores / math.sqrt(d_k)
"""}),
    dict(slug="scales_q_and_k", kind="wrong",
         mistake="scaled_scores divides both q and k by sqrt(d_k), so the scores are divided by d_k instead of sqrt(d_k)",
         ideal="scaled_scores divides both the queries and the keys by sqrt(d_k), so the product is divided by d_k rather than sqrt(d_k).",
         expect=[r"both|q and k|queries and (the )?keys|twice", r"d_k|sqrt|root|√"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision"],
         bodies={"scaled_scores": """
s = math.sqrt(q.size(-1))
return (q / s) @ (k / s).transpose(-2, -1)
"""}),
    dict(slug="prescale_rsqrt", kind="honest",
         method="multiply by d_k ** -0.5 (a precomputed scale, as many implementations do); scaled_scores scales q before the product",
         ideal="Correct: multiplying by d_k ** -0.5 equals dividing by sqrt(d_k), and scaling the queries before the product gives the same Q K^T / sqrt(d_k) out of place.",
         bodies={"scale_scores": """
scale = d_k ** -0.5
return scores * scale
""", "scaled_scores": """
scale = q.shape[-1] ** -0.5
return torch.matmul(q * scale, k.transpose(-1, -2))
"""}),
    dict(slug="torch_div_einsum", kind="honest",
         method="torch.div by math.sqrt and an einsum for the scores",
         ideal="Correct: torch.div returns a new tensor and the einsum is Q K^T, divided by sqrt(q.size(-1)).",
         bodies={"scale_scores": """
return torch.div(scores, math.sqrt(d_k))
""", "scaled_scores": """
return scale_scores(torch.einsum("...qd,...kd->...qk", q, k), q.size(-1))
"""}),
]
