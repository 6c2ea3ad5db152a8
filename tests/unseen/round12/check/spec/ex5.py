STUB = "exercise5_softmax.py"

SOFTMAX_OK = """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)  # a fully masked slice: shift by 0
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)  # 0 / 1 = 0 for a fully masked slice
"""
SDPA_OK = """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""

FILES = [
    dict(name="wrong_no_max_shift", kind="wrong",
         mistake="softmax exponentiates the raw entries without subtracting the max first: e^1e4 overflows to inf and inf/inf gives NaN for huge scores",
         ideal="softmax: subtract the slice's max before torch.exp (it cancels mathematically); without it e^{1e4} = inf and the weights become NaN",
         expect=r"max|overflow|stab|inf|1e4|huge|nan",
         reject=[r"dtype|device|in-?place|fully masked|dim=-2|transpos"],
         bodies=["""
e = torch.exp(x)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
""", SDPA_OK]),
    dict(name="wrong_nan_fully_masked", kind="wrong",
         mistake="softmax subtracts the max but never guards a slice that is entirely -inf: -inf - (-inf) = NaN, so a fully masked query gets NaN weights instead of zeros",
         ideal="softmax: for an all -inf slice the max is -inf and x - max is NaN; shift by 0 there (and guard the 0 sum) so such a slice gives zeros, the chapter's classic padding bug",
         expect=r"fully masked|all.?-?inf|nan|0/0|padding|masked (row|slice|query)",
         reject=[r"dtype|device|in-?place|overflow|dim=-2|transpos"],
         bodies=["""
m = x.amax(dim=dim, keepdim=True)
e = torch.exp(x - m)
return e / e.sum(dim=dim, keepdim=True)
""", SDPA_OK]),
    dict(name="wrong_ignores_dim", kind="wrong",
         mistake="softmax hard-codes dim=-1 in amax and sum, ignoring its dim argument, so softmax(x, dim=0) normalises the wrong axis",
         ideal="softmax: use the dim argument for the max and the sum; the slices along `dim` must sum to 1, not always the last axis",
         expect=r"\bdim\b|axis|along|sum to 1",
         reject=[r"dtype|device|in-?place|overflow|nan"],
         bodies=["""
m = x.amax(dim=-1, keepdim=True)
m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
e = torch.exp(x - m)
s = e.sum(dim=-1, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
""", SDPA_OK]),
    dict(name="wrong_nan_to_num_gradient", kind="wrong",
         mistake="softmax lets a fully -inf slice produce NaN and patches the output with torch.nan_to_num: the forward gives zeros but softmax's gradient w.r.t. that slice is NaN (0/0 in backward), though the docstring asks for zeros",
         ideal="softmax: nan_to_num hides the NaN in the forward only; backward still divides 0 by 0, so the gradients are NaN. Avoid the NaN itself: shift by 0 where the max is -inf and divide by 1 where the sum is 0",
         expect=r"grad|backward|nan",
         reject=[r"dtype|device|in-?place|overflow|dim=-2|transpos|wrong value"],
         bodies=["""
m = x.amax(dim=dim, keepdim=True)
e = torch.exp(x - m)
return torch.nan_to_num(e / e.sum(dim=dim, keepdim=True), nan=0.0)
""", SDPA_OK]),
    dict(name="wrong_scale_by_dv", kind="wrong",
         mistake="scaled_dot_product_attention divides the scores by √(v.size(-1)) = √d_v instead of √d_k = √(q.size(-1)); right only when d_v == d_k",
         ideal="scaled_dot_product_attention: the scale is √d_k, the width of the queries and keys (q.size(-1)), not the value width d_v",
         expect=r"d_k|d_v|q\.size\(-1\)|v\.size\(-1\)|scale|√|sqrt|width",
         reject=[r"dtype|device|in-?place|nan|fully masked"],
         bodies=[SOFTMAX_OK, """
scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""]),
    dict(name="wrong_softmax_over_queries", kind="wrong",
         mistake="scaled_dot_product_attention applies softmax over dim=-2 (the queries) instead of dim=-1 (the keys), so columns, not rows, sum to 1",
         ideal="scaled_dot_product_attention: each query's row of scores is normalised over the keys, softmax(dim=-1); dim=-2 normalises over the queries",
         expect=r"dim ?= ?-1|dim ?= ?-2|over the keys|rows?|columns?|axis|sum to 1",
         reject=[r"dtype|device|in-?place|overflow|\bscale\b"],
         bodies=[SOFTMAX_OK, """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-2)
return weights @ v, weights
"""]),
    dict(name="wrong_mask_after_softmax", kind="wrong",
         mistake="scaled_dot_product_attention multiplies the softmax weights by the mask afterwards instead of putting -inf in the scores before, so masked rows no longer sum to 1",
         ideal="scaled_dot_product_attention: mask the SCORES with -inf before the softmax; zeroing weights after it leaves rows that sum to less than 1 (the hidden keys still took their share)",
         expect=r"before (the )?softmax|-inf|sum to 1|renormali|after (the )?softmax|scores",
         reject=[r"dtype|device|in-?place|overflow|\bscale\b|√"],
         bodies=[SOFTMAX_OK, """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
weights = softmax(scores, dim=-1)
if mask is not None:
    weights = weights * mask
return weights @ v, weights
"""]),
    dict(name="wrong_causal_by_default", kind="wrong",
         mistake="scaled_dot_product_attention adds a causal mask when mask is None, though the docstring says mask=None means every query reads every key",
         ideal="scaled_dot_product_attention: with mask=None no mask at all is applied (no causal mask is added); only a given mask hides keys",
         expect=r"mask ?= ?None|no mask|causal|every key|future|tril",
         reject=[r"dtype|device|in-?place|overflow|\bscale\b|√"],
         bodies=[SOFTMAX_OK, """
d_k = q.size(-1)
scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
if mask is None:
    L_q, L_k = scores.shape[-2:]
    mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril()
scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""]),
    dict(name="honest_logsumexp_einsum", kind="honest",
         method="softmax as exp(x - logsumexp(x)) with fully -inf slices swapped for 0 before and zeroed after; attention with torch.einsum",
         bodies=["""
dead = torch.isneginf(x).all(dim=dim, keepdim=True)  # slices that may see nothing
safe = x.masked_fill(dead, 0.0)
out = torch.exp(safe - torch.logsumexp(safe, dim=dim, keepdim=True))
return out.masked_fill(dead, 0.0)
""", """
scale = 1.0 / math.sqrt(q.shape[-1])
scores = torch.einsum("...qd,...kd->...qk", q, k) * scale
if mask is not None:
    scores = scores.masked_fill(mask.logical_not(), float("-inf"))
weights = softmax(scores, dim=-1)
return torch.einsum("...qk,...kd->...qd", weights, v), weights
"""]),
    dict(name="honest_online_normalizer", kind="honest",
         method="softmax by the one-pass online normaliser (Milakov & Gimelshein 2018): an explicit loop keeps a running max and a rescaled running sum (float32 for half inputs); attention scales q before the product and masks with torch.where",
         bodies=["""
low_precision = x.dtype in (torch.float16, torch.bfloat16)
xt = x.movedim(dim, -1)
if low_precision:  # keep the running sum in float32, as fused kernels do
    xt = xt.float()
run_max = torch.full_like(xt[..., :1], float("-inf"))
run_sum = torch.zeros_like(xt[..., :1])
for j in range(xt.shape[-1]):
    x_j = xt[..., j:j + 1]
    new_max = torch.maximum(run_max, x_j)
    shift = torch.where(torch.isneginf(new_max), torch.zeros_like(new_max), new_max)
    run_sum = run_sum * torch.exp(run_max - shift) + torch.exp(x_j - shift)
    run_max = new_max
shift = torch.where(torch.isneginf(run_max), torch.zeros_like(run_max), run_max)
run_sum = torch.where(run_sum == 0, torch.ones_like(run_sum), run_sum)
return (torch.exp(xt - shift) / run_sum).movedim(-1, dim).to(x.dtype)
""", """
q_scaled = q / math.sqrt(q.size(-1))
scores = torch.matmul(q_scaled, k.mT)
if mask is not None:
    scores = torch.where(mask, scores, float("-inf"))
weights = softmax(scores, dim=-1)
return torch.matmul(weights, v), weights
"""]),
]
