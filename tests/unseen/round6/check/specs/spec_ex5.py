EX = 5
STUB = "exercise5_softmax.py"
CORRECT = {
    "softmax": """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)  # a row of -inf: shift by 0
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)  # a row of -inf: 0 / 1 = 0
""",
    "scaled_dot_product_attention": """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, L_k)
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
""",
}
VARIANTS = [
    dict(slug="global_max", kind="wrong",
         mistake="softmax subtracts the maximum of the whole tensor (x.max()), not of each slice, so a row far below the global max underflows to all zeros",
         ideal="softmax subtracts the global maximum x.max() instead of the per-slice max along dim, so a row whose scores are far below another row's (e.g. -1e4 next to +1e4) underflows to exp = 0 and gets zeros instead of weights that sum to 1.",
         expect=[r"global|whole tensor|x\.max\(\)|entire|per[- ](row|slice)|each (row|slice)", r"max"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"softmax": """
m = x.max()
if torch.isneginf(m):
    m = torch.zeros_like(m)
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}),
    dict(slug="max_last_dim", kind="wrong",
         mistake="softmax always takes the max along the last dim (amax(-1)) while summing along dim, which changes the result for dim != -1",
         ideal="softmax subtracts the max over the last dimension (-1) instead of over `dim`, so for dim != -1 the shift varies along the summed axis and the weights are wrong.",
         expect=[r"last (dim|axis)|dim ?= ?-1|\(-1\)|instead of (over )?`?dim", r"max|amax|shift"],
         reject=[r"global max", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"softmax": """
m = x.amax(dim=-1, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}),
    dict(slug="nan_to_num_backward", kind="wrong",
         mistake="softmax lets a fully -inf row produce 0/0 and patches the NaN with torch.nan_to_num: the forward gives zeros but the gradient of that row is NaN",
         ideal="softmax patches the NaN of a fully -inf row with torch.nan_to_num after the 0/0, so the forward values are zeros but the backward pass still goes through -inf - (-inf) and the gradients are NaN (not finite).",
         expect=[r"nan", r"grad|backward"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"global max"],
         bodies={"softmax": """
m = x.amax(dim=dim, keepdim=True)
e = torch.exp(x - m)
out = e / e.sum(dim=dim, keepdim=True)
return torch.nan_to_num(out, nan=0.0)  # a fully masked row: 0/0 -> 0
"""}),
    dict(slug="inplace_shift", kind="wrong",
         mistake="softmax shifts with x -= m, which subtracts in place from the caller's tensor",
         ideal="softmax writes x -= m, an in-place subtraction that modifies the caller's input (and breaks autograd on a leaf), instead of making a new tensor x - m.",
         expect=[r"in[- ]?place|-=|sub_|modif|mutat|overwrit", r"input|caller|\bx\b"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"global max"],
         bodies={"softmax": """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
x -= m
e = torch.exp(x)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}),
    dict(slug="float32_compute", kind="wrong",
         mistake="softmax computes in float32 for stability (x.float()) and never casts back, so float64 and half inputs return float32",
         ideal="softmax upcasts with x.float() and returns the float32 result, so float64 (and float16/bfloat16) inputs do not come back in their own dtype.",
         expect=[r"float32|\.float\(\)|dtype|precision|cast"],
         reject=[r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)", r"global max"],
         bodies={"softmax": """
x32 = x.float()  # softmax in fp32, like mixed-precision training
m = x32.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(x32 - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""}),
    dict(slug="diag_jacobian_backward", kind="wrong",
         mistake="softmax is a custom autograd.Function whose backward uses only the diagonal of the Jacobian, grad * a * (1 - a), dropping the -a_i a_j cross terms",
         ideal="softmax's custom autograd backward returns grad * a * (1 - a), only the diagonal of the softmax Jacobian, so the forward is right but the gradients are wrong; the full backward is a * (grad - sum(grad * a)).",
         expect=[r"backward|gradient|jacobian", r"diagonal|a ?\* ?\(1 ?- ?a\)|cross|off-diagonal|a_j|sum"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         prelude='''
class _Softmax(torch.autograd.Function):
    """Softmax with a hand-written backward (saves memory: only the output is kept)."""

    @staticmethod
    def forward(ctx, x, dim):
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        a = e / torch.where(s == 0, torch.ones_like(s), s)
        ctx.save_for_backward(a)
        return a

    @staticmethod
    def backward(ctx, grad):
        (a,) = ctx.saved_tensors
        return grad * a * (1 - a), None  # d softmax / d x = a (1 - a)
''',
         bodies={"softmax": """
return _Softmax.apply(x, dim)
"""}),
    dict(slug="scale_by_dv", kind="wrong",
         mistake="scaled_dot_product_attention scales by sqrt(v.size(-1)), the value width d_v, instead of d_k = q.size(-1)",
         ideal="scaled_dot_product_attention divides the scores by sqrt(v.size(-1)), the value width d_v, instead of sqrt(d_k) with d_k = q.size(-1), so it is wrong whenever d_v != d_k.",
         expect=[r"d_v|v\.size|value", r"d_k|q\.size|scale|sqrt"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"scaled_dot_product_attention": """
scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""}),
    dict(slug="default_causal", kind="wrong",
         mistake="scaled_dot_product_attention adds a causal mask when mask is None, although mask=None means every query reads every key",
         ideal="scaled_dot_product_attention builds a causal (tril) mask when mask is None, but the docstring says None means no mask at all: every query must read every key.",
         expect=[r"causal|tril|triangular|future", r"none|default|no mask"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"scaled_dot_product_attention": """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
if mask is None:  # like the chapter's multi-head attention: causal by default
    L_q, L_k = scores.shape[-2:]
    mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril()
scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""}),
    dict(slug="minus_1e9_fill", kind="wrong",
         mistake="scaled_dot_product_attention masks with -1e9 instead of -inf, so a fully masked query gets uniform weights and the mean of the values instead of zeros",
         ideal="scaled_dot_product_attention fills masked scores with -1e9 rather than -inf, so a query whose mask row is all False gets uniform weights (the average of the values) instead of zero weights and a zero output.",
         expect=[r"1e-?9|finite|large negative|not -?inf|instead of -?inf", r"fully masked|all false|uniform|zero|no key"],
         reject=[r"wrong dtype|dtype (is |was )?(not preserved|wrong|changed)|(returns|gives|upcasts?( it)? to) float(32|64)|loses? precision", r"(modifies|changes|mutates|overwrites) (its |the )?(input|caller)|in[- ]place (edit|change|modification|write|update)"],
         bodies={"scaled_dot_product_attention": """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
if mask is not None:
    scores = scores.masked_fill(~mask, -1e9)
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""}),
    dict(slug="logsumexp_einsum", kind="honest",
         method="softmax as exp(x - logsumexp(x)) with fully -inf slices replaced by 0 before and after; attention with einsum",
         ideal="Correct: exp(x - logsumexp) is softmax, sanitising all -inf slices first keeps forward and gradients finite, and the einsums are Q K^T and A V.",
         bodies={"softmax": """
dead = torch.isneginf(x).all(dim=dim, keepdim=True)  # slices that may see nothing
xs = x.masked_fill(dead, 0.0)
lse = torch.logsumexp(xs, dim=dim, keepdim=True)
return torch.exp(xs - lse).masked_fill(dead, 0.0)
""", "scaled_dot_product_attention": """
scores = torch.einsum("...qd,...kd->...qk", q, k) * (1.0 / math.sqrt(q.shape[-1]))
if mask is not None:
    scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
weights = softmax(scores, dim=-1)
return torch.einsum("...qk,...kd->...qd", weights, v), weights
"""}),
    dict(slug="movedim_detached_max", kind="honest",
         method="softmax moved to the last axis (movedim) with a detached, clamped-to-finite shift; attention masks weights after the softmax too",
         ideal="Correct: the shift is a constant so detaching it leaves the gradient exact, clamping a -inf max to 0 and dividing by max(sum, tiny) keeps all -inf slices at zero, and movedim restores the axis.",
         bodies={"softmax": """
y = x.movedim(dim, -1)
shift = y.detach().amax(dim=-1, keepdim=True)
shift = torch.where(torch.isfinite(shift), shift, torch.zeros_like(shift))
e = (y - shift).exp()
denom = e.sum(dim=-1, keepdim=True)
denom = torch.where(denom > 0, denom, torch.ones_like(denom))
return (e / denom).movedim(-1, dim)
""", "scaled_dot_product_attention": """
scale = 1.0 / math.sqrt(q.size(-1))
scores = torch.matmul(q, k.transpose(-1, -2)) * scale
if mask is not None:
    scores = scores.masked_fill(mask.logical_not(), float("-inf"))
weights = softmax(scores, dim=-1)
out = torch.matmul(weights, v)
return out, weights
"""}),
]
