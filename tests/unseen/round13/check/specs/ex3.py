STUB = "exercise3_scaling.py"
DEFAULT = ["return scores / math.sqrt(d_k)", "return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))"]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "inplace_divide",
    "scale_scores divides with scores /= math.sqrt(d_k), which rescales the caller's tensor in place and returns it instead of a new tensor.",
    "`scores /= ...` edits the input in place (and breaks autograd on a leaf); return a new tensor with scores / math.sqrt(d_k).",
    r"(?i)(in[- ]place|/=|new tensor|input.*(chang|modif)|(chang|modif).*input)",
    r"(?i)(dtype|device|sqrt of|d_model|precedence)",
    ["scores /= math.sqrt(d_k)\nreturn scores", None], fails=["scale_unchanged"])
add("wrong", "dk_from_key_count",
    "scaled_scores takes d_k as k.size(-2), the number of keys, instead of the feature width q.size(-1).",
    "You read d_k from k.size(-2), which is L_k (the number of keys); d_k is the query/key width, q.size(-1).",
    r"(?i)(size\(-1\)|size\(-2\)|L_k|number of keys|width|wrong (axis|dim)|last dim)",
    r"(?i)(dtype|device|in[- ]place|precedence)",
    [None, "d_k = k.size(-2)\nreturn q @ k.transpose(-2, -1) / math.sqrt(d_k)"], fails=["scaled_values"])
add("wrong", "power_precedence",
    "scale_scores writes d_k ** 1/2, which Python reads as (d_k ** 1) / 2 = d_k / 2, not √d_k.",
    "Operator precedence: d_k ** 1/2 is d_k / 2; write d_k ** 0.5 (or math.sqrt(d_k)).",
    r"(?i)(precedence|\*\* ?1 ?/ ?2|d_k ?/ ?2|\*\* ?0\.5|parenthes|math\.sqrt)",
    r"(?i)(dtype|device|in[- ]place|axis)",
    ["return scores / d_k ** 1/2", "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"], fails=["scale_values"])
add("wrong", "one_element_scale_tensor",
    "scale_scores multiplies by torch.rsqrt(torch.tensor([d_k], dtype=torch.float32)), a 1-element CPU float32 tensor that takes part in type promotion, so float16/bfloat16 scores come back float32 and GPU scores meet a CPU tensor.",
    "The scale is a float32 CPU tensor with a dimension, so it promotes half-precision scores to float32 and is on the wrong device; divide by the Python float math.sqrt(d_k) instead.",
    r"(?i)(dtype|float32|device|cpu|torch\.tensor|promot|python (float|number)|math\.sqrt)",
    r"(?i)(precedence|in[- ]place|axis|value is wrong)",
    ["return scores * torch.rsqrt(torch.tensor([d_k], dtype=torch.float32))", None], fails=["dtypes", "device"])
add("wrong", "ignores_dk_argument",
    "scale_scores ignores its d_k argument and divides by √scores.size(-1) (the number of keys), which is only right when L_k happens to equal d_k.",
    "You divide by √(scores.size(-1)), the number of keys, not by the d_k you are given; use math.sqrt(d_k).",
    r"(?i)(d_k argument|ignor|size\(-1\)|number of keys|L_k|given d_k|parameter)",
    r"(?i)(dtype|device|in[- ]place|precedence)",
    ["return scores / math.sqrt(scores.size(-1))", "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"],
    fails=["scale_values"])
add("wrong", "integer_sqrt",
    "scale_scores uses math.isqrt(d_k), the integer square root, so it is right for d_k = 16 or 64 but wrong for widths that are not perfect squares (√8 becomes 2).",
    "math.isqrt rounds √d_k down to an integer (isqrt(8) = 2); use math.sqrt(d_k).",
    r"(?i)(isqrt|integer|round|perfect square|math\.sqrt)",
    r"(?i)(dtype|device|in[- ]place|precedence|axis)",
    ["return scores / math.isqrt(d_k)", "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"],
    fails=["scale_values"])
add("wrong", "quarter_power_both",
    "scaled_scores ports the 'scale q and k each by d_k^-1/4' trick but uses d_k ** -0.5 on both, so the scores are divided by d_k instead of √d_k.",
    "Scaling both q and k by d_k ** -0.5 divides the product by d_k; scale only one of them by d_k ** -0.5 (or each by d_k ** -0.25).",
    r"(?i)(both|twice|d_k ?\*\* ?-0\.25|divid\w* by d_k|\*\* ?-0\.5|one of them|only q)",
    r"(?i)(dtype|device|in[- ]place|precedence|axis)",
    [None, "s = q.size(-1) ** -0.5\nreturn (q * s) @ (k * s).transpose(-2, -1)"], fails=["scaled_values"])
add("wrong", "no_grad_constant",
    "scale_scores computes the division under torch.no_grad() (the scale is a constant), so the value is right but the result is cut from autograd and the scores get no gradient.",
    "torch.no_grad() detaches the result, so nothing before the scaling gets a gradient; a constant factor needs no special care, just return scores / math.sqrt(d_k).",
    r"(?i)(no_grad|gradient|autograd|detach|graph)",
    r"(?i)(dtype|device|in[- ]place|precedence|axis)",
    ["with torch.no_grad():\n    return scores / math.sqrt(d_k)", "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"],
    fails=["scale_grad"])
add("honest", "prescale_queries",
    "scale_scores multiplies by the reciprocal of math.sqrt; scaled_scores folds the scale into the queries first (q · d_k^-1/2) and then takes the product with the keys via matmul and swapaxes.",
    "", OKX, BADX,
    ["return scores * (1.0 / math.sqrt(d_k))",
     "return torch.matmul(q * (1.0 / math.sqrt(q.shape[-1])), torch.swapaxes(k, -1, -2))"])
add("honest", "einsum_div",
    "scale_scores uses torch.div by a Python float; scaled_scores is one einsum with an ellipsis followed by the same division.",
    "", OKX, BADX,
    ["return torch.div(scores, float(d_k) ** 0.5)",
     "return scale_scores(torch.einsum('...id,...jd->...ij', q, k), q.shape[-1])"])
VARIANTS = V
