STUB = "exercise5_softmax.py"
DEFAULT = [
    "m = x.amax(dim=dim, keepdim=True)\nm = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\ne = torch.exp(x - m)\ns = e.sum(dim=dim, keepdim=True)\nreturn e / torch.where(s == 0, torch.ones_like(s), s)",
    "scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\nif mask is not None:\n    scores = scores.masked_fill(~mask, float('-inf'))\nweights = softmax(scores, dim=-1)\nreturn weights @ v, weights",
]
V = []
def add(kind, name, what, ideal, expect, reject, bodies, fails=(), helpers=None):
    V.append(dict(kind=kind, name=name, what=what, ideal=ideal, expect=expect, reject=reject,
                  bodies=bodies, fails=list(fails), helpers=helpers))
OKX, BADX = r"(?i)(pass|correct|full marks|no (mistake|problem))", r"(?i)(wrong|mistake|incorrect|fail)"

add("wrong", "global_max_shift",
    "softmax subtracts the maximum of the WHOLE tensor (x.max()) instead of each slice's maximum, so a slice far below the global max (e.g. around -1e4 next to one around +1e4) underflows to 0/0.",
    "Subtracting one global max is not enough: a slice much smaller than the largest entry underflows to all zeros and divides 0 by 0; subtract each slice's own max, x.amax(dim, keepdim=True).",
    r"(?i)(global|whole tensor|each (row|slice)|per[- ](row|slice)|amax|keepdim|underflow)",
    r"(?i)(dtype|device|in[- ]place|dim argument|\bsqrt)",
    ["m = x.max()\nm = m if torch.isfinite(m) else torch.zeros_like(m)\ne = torch.exp(x - m)\ns = e.sum(dim=dim, keepdim=True)\nreturn e / torch.where(s == 0, torch.ones_like(s), s)", None],
    fails=["softmax_values"])
add("wrong", "dim_ignored",
    "softmax always normalises over the last axis (dim=-1 hard-coded) and ignores its dim argument.",
    "Your softmax ignores dim and always sums over the last axis; take the max and the sum along the dim you are given.",
    r"(?i)(dim argument|ignor|\bdim\b|axis|last (axis|dim))",
    r"(?i)(dtype|device|in[- ]place|\bsqrt|global)",
    ["m = x.amax(dim=-1, keepdim=True)\nm = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\ne = torch.exp(x - m)\ns = e.sum(dim=-1, keepdim=True)\nreturn e / torch.where(s == 0, torch.ones_like(s), s)", None],
    fails=["softmax_dim"])
add("wrong", "nan_to_num_backward",
    "softmax lets a fully masked slice compute exp(-inf - (-inf)) = NaN and repairs only the forward with torch.nan_to_num, so the values are right but the gradient of that slice is NaN.",
    "The forward is patched but the NaN is still in the graph, so backward gives NaN for a fully masked row; avoid producing it (shift by 0 where the max is -inf, divide by 1 where the sum is 0) instead of cleaning it afterwards.",
    r"(?i)(gradient|backward|nan_to_num|NaN.*grad|grad.*NaN)",
    r"(?i)(dtype|device|in[- ]place|dim argument|global max)",
    ["m = x.amax(dim=dim, keepdim=True)\ne = torch.exp(x - m)\nout = e / e.sum(dim=dim, keepdim=True)\nreturn torch.nan_to_num(out, nan=0.0)", None],
    fails=["softmax_grad", "sdpa_grad"])
add("wrong", "max_without_keepdim",
    "softmax takes x.amax(dim) and x.sum(dim) without keepdim=True, so the (..., ) result broadcasts against the wrong axis of x (only right when the shapes happen to line up).",
    "Without keepdim=True the max and the sum lose the reduced axis and broadcast against the last axis of x instead; keep the dim (keepdim=True).",
    r"(?i)(keepdim|broadcast|reduced (axis|dim)|unsqueeze)",
    r"(?i)(dtype|device|in[- ]place|\bsqrt|global max)",
    ["m = x.amax(dim=dim)\nm = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\ne = torch.exp(x - m)\ns = e.sum(dim=dim)\nreturn e / torch.where(s == 0, torch.ones_like(s), s)", None],
    fails=["softmax_values"])
add("wrong", "scale_by_value_width",
    "scaled_dot_product_attention divides the scores by √v.size(-1) (d_v) instead of √q.size(-1) (d_k), wrong whenever d_v != d_k.",
    "You scale by the value width d_v = v.size(-1); the scale is √d_k with d_k = q.size(-1).",
    r"(?i)(d_v|v\.size|value width|d_k|q\.size\(-1\))",
    r"(?i)(dtype|device|in[- ]place|dim argument|causal)",
    [None, "scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))\nif mask is not None:\n    scores = scores.masked_fill(~mask, float('-inf'))\nweights = softmax(scores, dim=-1)\nreturn weights @ v, weights"],
    fails=["sdpa_values"])
add("wrong", "causal_by_default",
    "scaled_dot_product_attention adds a causal mask when mask is None, but the docstring says None means every query reads every key.",
    "With mask=None every query must read every key: no causal mask is added; apply a mask only when one is given.",
    r"(?i)(causal|mask is None|mask=None|every key|default)",
    r"(?i)(dtype|device|in[- ]place|\bsqrt|d_v)",
    [None, "scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\nif mask is None:\n    Lq, Lk = scores.shape[-2:]\n    mask = torch.ones(Lq, Lk, dtype=torch.bool, device=q.device).tril(Lk - Lq)\nscores = scores.masked_fill(~mask, float('-inf'))\nweights = softmax(scores, dim=-1)\nreturn weights @ v, weights"],
    fails=["sdpa_values"])
add("wrong", "inplace_exp",
    "softmax works in place (x.sub_(m).exp_()), so the caller's tensor is overwritten with the exponentials.",
    "sub_ and exp_ modify x itself; compute torch.exp(x - m) out of place so the input is left unchanged.",
    r"(?i)(in[- ]place|sub_|exp_|underscore|input.*(chang|modif|overwrit)|(chang|modif|overwrit).*input)",
    r"(?i)(dtype|device|dim argument|\bsqrt|global max)",
    ["m = x.amax(dim=dim, keepdim=True)\nm = torch.where(torch.isfinite(m), m, torch.zeros_like(m))\ne = x.sub_(m).exp_()\ns = e.sum(dim=dim, keepdim=True)\nreturn e / torch.where(s == 0, torch.ones_like(s), s)", None],
    fails=["softmax_unchanged"])
add("wrong", "logsumexp_masked_row",
    "softmax is exp(x - logsumexp(x)), which is stable for large entries but gives -inf - (-inf) = NaN for a slice that is entirely -inf instead of zeros.",
    "For a fully masked slice logsumexp is -inf and x - logsumexp is NaN; guard that case (treat the slice's logsumexp as 0, or zero its output) so it gives zeros with finite gradients.",
    r"(?i)(fully masked|all -inf|entirely -inf|NaN|0/0|masked row)",
    r"(?i)(dtype|device|in[- ]place|dim argument|\bsqrt|overflow)",
    ["return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))", None],
    fails=["softmax_masked"])
add("honest", "logsumexp_guarded",
    "softmax as exp(x - logsumexp(x)) computed on a copy where fully -inf slices are replaced by zeros, then those slices zeroed with torch.where; attention via einsum.",
    "", OKX, BADX,
    ["dead = torch.isneginf(x).all(dim=dim, keepdim=True)\nsafe = torch.where(dead, torch.zeros_like(x), x)\nlse = torch.logsumexp(safe, dim=dim, keepdim=True)\nreturn torch.where(dead, torch.zeros_like(x), torch.exp(safe - lse))",
     "scores = torch.einsum('...qd,...kd->...qk', q, k) * q.shape[-1] ** -0.5\nif mask is not None:\n    scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device))\nweights = softmax(scores, -1)\nreturn torch.einsum('...qk,...kd->...qd', weights, v), weights"])
add("honest", "movedim_clamp",
    "softmax moves dim to the end, shifts by a per-row max clamped to be finite via nan_to_num on the max only, normalises by a sum clamped away from 0, and moves the axis back.",
    "", OKX, BADX,
    ["y = x.movedim(dim, -1)\nm = y.amax(-1, keepdim=True)\nm = torch.nan_to_num(m, nan=0.0, neginf=0.0, posinf=0.0)\ne = (y - m).exp()\ntotal = e.sum(-1, keepdim=True)\nout = e / total.clamp(min=torch.finfo(e.dtype).tiny)\nreturn out.movedim(-1, dim)",
     "d_k = q.shape[-1]\nscores = torch.matmul(q / math.sqrt(d_k), k.mT)\nif mask is not None:\n    scores = scores.masked_fill(mask.logical_not(), -math.inf)\nweights = softmax(scores)\nreturn torch.matmul(weights, v), weights"])
VARIANTS = V
