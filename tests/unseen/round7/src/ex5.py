from build import H, W

BASE = {
    "softmax": """
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)  # a slice of -inf: shift by 0
        e = torch.exp(x - m)  # every entry <= 1
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)  # a slice of -inf: 0 / 1 = 0
    """,
    "scaled_dot_product_attention": """
        d_k = q.size(-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, L_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)  # over the keys
        return weights @ v, weights
    """,
}

NOT_DTYPE = r"\bdtype\b.*(lost|changed|not kept)|float32 (result|output)"
NOT_INPLACE = r"in.place"
NAN_ROW = r"fully masked|all.-inf|entirely -inf|masked (row|slice|query)|no key"

FILES = [
    W("no_max_shift",
      "softmax exponentiates x directly without subtracting the slice's maximum, so e^x overflows to inf for large scores and the row becomes inf/inf = NaN",
      "softmax calls torch.exp(x) without first subtracting each slice's maximum, so large scores (1e4, or anything above ~88 in float32) overflow to inf and the row becomes inf / inf = NaN; subtract x.amax(dim, keepdim=True) (shifting by 0 where it is -inf) before the exp.",
      [r"\bsoftmax\b", r"overflow|inf ?/ ?inf|max(imum)?|stabl|subtract|large|1e4|huge"],
      [NOT_INPLACE, NOT_DTYPE, r"without keepdim|keepdim.{0,20}missing"],
      {"softmax": """
        e = torch.exp(x)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)  # a slice of -inf: 0 / 1 = 0
    """}),
    W("no_neginf_guard",
      "softmax subtracts the max but does not guard a slice that is entirely -inf: -inf - (-inf) = NaN, so a fully masked row gives NaN instead of zeros",
      "softmax subtracts the slice's max without a guard, so for a slice that is entirely -inf (a fully masked query) the max is -inf and x - max = -inf - (-inf) = NaN: the row comes out NaN instead of zeros; shift by 0 where the max is -inf and divide by 1 where the sum is 0.",
      [r"\bsoftmax\b", NAN_ROW, r"nan|not a number|0 ?/ ?0|-inf - \(?-inf"],
      [r"overflow", NOT_INPLACE, NOT_DTYPE],
      {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        e = torch.exp(x - m)
        return e / e.sum(dim=dim, keepdim=True)
    """}),
    W("nan_to_num_after",
      "softmax fixes the fully masked rows afterwards with torch.nan_to_num: the forward gives zeros, but the NaN is still inside the graph and the backward pass gives NaN gradients",
      "softmax computes the unguarded exp(x - max) / sum and then replaces the NaN of a fully masked row with torch.nan_to_num; the forward values are zeros, but the NaN (-inf - (-inf), 0/0) is still in the autograd graph, so the backward pass puts NaN into the gradient of that row; guard before it appears (shift by 0 where the max is -inf, divide by 1 where the sum is 0).",
      [r"\bsoftmax\b", r"nan", r"grad|backward"],
      [r"overflow", NOT_DTYPE, r"keepdim"],
      {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        e = torch.exp(x - m)
        out = e / e.sum(dim=dim, keepdim=True)
        return torch.nan_to_num(out, nan=0.0)  # a fully masked slice: NaN -> 0
    """}),
    W("global_max_shift",
      "softmax shifts by the global maximum x.max() instead of each slice's own maximum, so a slice far below the largest score underflows to all zeros",
      "softmax subtracts x.max(), the largest entry of the whole tensor, instead of each slice's maximum along dim; a slice whose scores are far below the global max (e.g. -1e4 while another row holds 1e4) underflows to e^(-2e4) = 0 everywhere and comes out as zeros, as if fully masked; take x.amax(dim, keepdim=True).",
      [r"\bsoftmax\b", r"global|whole tensor|x\.max\(\)|each (slice|row)|per.(slice|row)|underflow|amax\(dim"],
      [r"nan_to_num", NOT_INPLACE, NOT_DTYPE],
      {"softmax": """
        m = x.max()  # shift by the largest entry: every exp is then <= 1
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    W("max_without_keepdim",
      "softmax takes x.amax(dim) without keepdim=True, so the max loses the reduced axis and x - m broadcasts it along the wrong axis",
      "softmax computes m = x.amax(dim=dim) without keepdim=True, so m lacks the reduced axis and x - m broadcasts it against the wrong dimension: a shape error for non-square inputs, and on a square one each entry is shifted by another slice's max (overflow or wrong weights); use keepdim=True.",
      [r"\bsoftmax\b", r"keepdim|broadcast|reduced (axis|dim)|wrong (axis|dim)|shape"],
      [r"nan_to_num", NOT_INPLACE, NOT_DTYPE],
      {"softmax": """
        m = x.amax(dim=dim)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    W("normalises_exp_in_place",
      "softmax normalises with e /= sum in place, but e is torch.exp's output, which autograd saved: backward raises 'modified by an inplace operation'",
      "softmax divides e in place (e /= ...), but e is the output of torch.exp, which autograd saved for the exp's backward; the in-place division bumps its version, so backward raises 'one of the variables needed for gradient computation has been modified by an inplace operation'; divide out of place (e / s).",
      [r"\bsoftmax\b", r"in.?place|/=", r"backward|grad|autograd|saved"],
      [r"overflow", NOT_DTYPE, r"keepdim"],
      {"softmax": """
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        e /= torch.where(s == 0, torch.ones_like(s), s)  # normalise in place: no extra tensor
        return e
    """}),
    W("upcast_never_cast_back",
      "softmax upcasts to float32 as Hugging Face's eager attention does (softmax(..., dtype=torch.float32)) but drops its .to(query.dtype): half-precision and float64 input comes back float32",
      "softmax converts x with x.float() to compute in float32, as Hugging Face's eager attention does, but never converts the result back (HF ends with .to(query.dtype)), so float16/bfloat16 input comes back as float32 and float64 input is rounded to float32; return the weights in x's dtype.",
      [r"\bsoftmax\b", r"float32|\.float\(\)|dtype|cast|upcast|half|float16|bfloat16|float64"],
      [r"overflow", NOT_INPLACE, r"keepdim"],
      {"softmax": """
        x = x.float()  # softmax in float32, as Hugging Face does for half-precision models
        m = x.amax(dim=dim, keepdim=True)
        m = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
        e = torch.exp(x - m)
        s = e.sum(dim=dim, keepdim=True)
        return e / torch.where(s == 0, torch.ones_like(s), s)
    """}),
    W("causal_by_default",
      "scaled_dot_product_attention adds a causal mask when mask is None; the docstring says None means every query reads every key",
      "scaled_dot_product_attention builds a causal (tril) mask when mask is None, but the docstring says None means no mask at all (every query reads every key; no causal mask is added), so unmasked attention zeroes every key above the diagonal; only mask when a mask is given.",
      [r"scaled_dot_product_attention|attention", r"causal|tril|mask(=| is )None|no mask|every key|above the diagonal|future"],
      [r"overflow", NOT_DTYPE, r"√d_v|d_v"],
      {"scaled_dot_product_attention": """
        d_k = q.size(-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)
        if mask is None:  # a language model never looks ahead
            L_q, L_k = scores.shape[-2:]
            mask = torch.ones(L_q, L_k, dtype=torch.bool, device=q.device).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores, dim=-1)
        return weights @ v, weights
    """}),
    W("annotated_fill_minus_1e9",
      "scaled_dot_product_attention fills masked scores with -1e9 (ported from the Annotated Transformer's attention) instead of -inf: a fully masked query gets uniform weights, and -1e9 does not fit in float16",
      "scaled_dot_product_attention masks with masked_fill(mask == 0, -1e9), the Annotated Transformer's trick, instead of -inf: a query whose mask row is all False then has equal scores and gets uniform weights 1/L_k and the mean of the values instead of zero weights and a zero output (and -1e9 overflows float16); fill with -inf and let your softmax zero the row.",
      [r"scaled_dot_product_attention|attention", r"-1e9|1e9|-inf|finite|uniform|mean of the values"],
      [r"overflow.{0,20}exp|e\^x overflow", NOT_INPLACE, r"causal mask (is )?added"],
      {"scaled_dot_product_attention": """
        d_k = q.size(-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        p_attn = softmax(scores, dim=-1)
        return torch.matmul(p_attn, v), p_attn
    """}),
    H("logsumexp_dead_rows",
      "softmax as exp(s - logsumexp(s)) of the max-shifted scores s, with fully -inf slices replaced by 0 before and zeroed after; attention with einsum and torch.where",
      {"softmax": """
        dead = (x == float("-inf")).all(dim=dim, keepdim=True)  # slices with nothing to attend to
        safe = x.masked_fill(dead, 0.0)
        safe = safe - safe.amax(dim=dim, keepdim=True)  # largest entry 0: the log-sum-exp lies in [0, log n]
        out = torch.exp(safe - torch.logsumexp(safe, dim=dim, keepdim=True))
        return out.masked_fill(dead, 0.0)
    """,
       "scaled_dot_product_attention": """
        scores = torch.einsum("...qd,...kd->...qk", q, k) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = torch.where(mask, scores, float("-inf"))
        weights = softmax(scores)
        return torch.einsum("...qk,...kd->...qd", weights, v), weights
    """}),
    H("detached_shift_clamped_sum",
      "softmax shifts by the detached max (a constant: the shift cancels, so its gradient is not needed) with -inf mapped to 0 by nan_to_num, and clamps the sum at finfo.tiny; attention scales q first",
      {"softmax": """
        shift = x.detach().amax(dim=dim, keepdim=True).nan_to_num(neginf=0.0)  # softmax(x - c) == softmax(x)
        num = (x - shift).exp()
        den = num.sum(dim=dim, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)
        return num / den
    """,
       "scaled_dot_product_attention": """
        q = q * (1.0 / math.sqrt(q.size(-1)))
        scores = torch.matmul(q, k.mT)
        if mask is not None:
            scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        weights = softmax(scores, dim=-1)
        return torch.matmul(weights, v), weights
    """}),
]
