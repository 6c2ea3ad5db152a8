OK_SOFTMAX = """
m = x.amax(dim=dim, keepdim=True)
m = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
e = torch.exp(x - m)
s = e.sum(dim=dim, keepdim=True)
return e / torch.where(s == 0, torch.ones_like(s), s)
"""
OK_SDPA = """
scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
if mask is not None:
    scores = scores.masked_fill(~mask, float("-inf"))
weights = softmax(scores, dim=-1)
return weights @ v, weights
"""

VARIANTS = [
    dict(
        name="no_max_shift", kind="wrong",
        mistake="softmax exponentiates the raw scores without subtracting the max, so e^1e4 overflows to inf (NaN weights) and a fully masked row gives 0/0",
        ideal="Subtract each slice's max before torch.exp (it cancels mathematically but keeps every exponential <= 1),\nand guard the all -inf slice (shift by 0, divide by 1 where the sum is 0).",
        expect=[r"max|overflow|stab|inf\b|nan|huge|large"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": """
            e = torch.exp(x)
            s = e.sum(dim=dim, keepdim=True)
            return e / torch.where(s == 0, torch.ones_like(s), s)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="masked_row_nan", kind="wrong",
        mistake="softmax subtracts the max but does not guard a slice that is entirely -inf: -inf - (-inf) is NaN, so a fully masked row gives NaN instead of zeros",
        ideal="For a fully masked row the max is -inf and x - max is NaN. Shift by 0 where the max is -inf (and divide by 1 where the sum is 0),\nso that row comes out as zeros.",
        expect=[r"fully masked|all[- ]?(-inf|masked|false)|entirely|nan|0 ?/ ?0|-inf ?- ?\(?-inf|guard|empty row|sees? no key"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": """
            e = torch.exp(x - x.amax(dim=dim, keepdim=True))
            return e / e.sum(dim=dim, keepdim=True)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="nan_to_num_backward", kind="wrong",
        mistake="softmax lets a fully masked row become NaN and then replaces the NaN with 0 via torch.where: the forward is right but the gradients of that row are NaN",
        ideal="Cleaning NaN after the fact fixes the values, not the backward pass: autograd still differentiates the NaN branch (0 * NaN = NaN).\nAvoid making NaN at all: shift by 0 where the max is -inf and divide by 1 where the sum is 0.",
        expect=[r"gradient|backward|grad\b|autograd"],
        expect_more=[r"nan"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": """
            e = torch.exp(x - x.amax(dim=dim, keepdim=True))
            out = e / e.sum(dim=dim, keepdim=True)
            return torch.where(torch.isnan(out), torch.zeros_like(out), out)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="dim_hardcoded", kind="wrong",
        mistake="softmax takes the max and the sum over the last axis (dim=-1) whatever `dim` it is given, so softmax(x, dim=0) is wrong",
        ideal="The slice that must sum to 1 is the one along `dim`; hard-coding -1 only works for attention weights.\nUse dim=dim in amax and sum.",
        expect=[r"\bdim\b|axis|-1|hard[- ]?cod|argument|paramet"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": """
            m = x.amax(dim=-1, keepdim=True)
            m = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
            e = torch.exp(x - m)
            s = e.sum(dim=-1, keepdim=True)
            return e / torch.where(s == 0, torch.ones_like(s), s)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="global_max", kind="wrong",
        mistake="softmax subtracts the max of the whole tensor (x.max()) rather than each slice's max, so a row far below the global max underflows to all zeros",
        ideal="The shift must be per slice (amax along dim, keepdim=True). With one global max, a row whose scores are all ~1e4 below it\nhas every e^(x - max) = 0 and comes out as zeros instead of a distribution.",
        expect=[r"per[- ](row|slice)|each (row|slice)|global|whole tensor|keepdim|along (the )?dim|underflow|x\.max\(\)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": """
            finite = x[torch.isfinite(x)]
            m = finite.max() if finite.numel() else x.new_zeros(())
            e = torch.exp(x - m)
            s = e.sum(dim=dim, keepdim=True)
            return e / torch.where(s == 0, torch.ones_like(s), s)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="true_means_masked", kind="wrong",
        mistake="scaled_dot_product_attention fills -inf where the mask is True (the nn.MultiheadAttention / key_padding_mask convention), i.e. it hides exactly the keys that may be read",
        ideal="In this chapter True = may attend: -inf goes where the mask is False, masked_fill(~mask, -inf).\nThe True-means-masked convention belongs to PyTorch's nn.MultiheadAttention.",
        expect=[r"invert|opposite|revers|flip|negat|~ ?mask|not mask|convention|True (=|means|for)|where (the mask is )?(False|True)"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": OK_SOFTMAX, "scaled_dot_product_attention": """
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
            if mask is not None:
                scores = scores.masked_fill(mask, float("-inf"))
            weights = softmax(scores, dim=-1)
            return weights @ v, weights
            """},
    ),
    dict(
        name="causal_by_default", kind="wrong",
        mistake="scaled_dot_product_attention adds a causal mask when mask is None, but None must mean every query reads every key",
        ideal="With mask=None no mask is applied (the causal default belongs to the multi-head module, exercise 6).\nOnly mask the scores when a mask is given.",
        expect=[r"causal|None|no mask|every key|default|tril|future"],
        reject=[r"\bdtype\b", r"in[- ]?place"],
        bodies={"softmax": OK_SOFTMAX, "scaled_dot_product_attention": """
            L_q, L_k = q.size(-2), k.size(-2)
            if mask is None:
                mask = torch.tril(torch.ones(L_q, L_k, dtype=torch.bool, device=q.device))
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
            scores = scores.masked_fill(~mask, float("-inf"))
            weights = softmax(scores, dim=-1)
            return weights @ v, weights
            """},
    ),
    dict(
        name="float32_upcast", kind="wrong",
        mistake="softmax computes in float32 (x.float()) for stability and never casts back, so float64 and float16 inputs get float32 weights",
        ideal="Upcasting half precision for the exponentials is fine, but the result must come back in x's dtype,\nand for float64 the cast to float32 throws away precision. Cast back with .to(x.dtype) (and don't downcast float64).",
        expect=[r"dtype|float32|float64|float16|precision|\.float\(\)|cast"],
        reject=[r"in[- ]?place", r"max\b.{0,20}(missing|forgot)"],
        bodies={"softmax": """
            xf = x.float()
            m = xf.amax(dim=dim, keepdim=True)
            m = torch.where(torch.isinf(m) & (m < 0), torch.zeros_like(m), m)
            e = torch.exp(xf - m)
            s = e.sum(dim=dim, keepdim=True)
            return e / torch.where(s == 0, torch.ones_like(s), s)
            """, "scaled_dot_product_attention": OK_SDPA},
    ),
    dict(
        name="logsumexp", kind="honest",
        method="softmax as exp(x - logsumexp(x)), with fully masked slices swapped for zeros before logsumexp; attention with einsum and torch.where",
        bodies={"softmax": """
            dead = torch.isneginf(x).all(dim=dim, keepdim=True)
            safe = torch.where(dead, torch.zeros_like(x), x)
            lse = torch.logsumexp(safe, dim=dim, keepdim=True)
            return torch.where(dead, torch.zeros_like(x), torch.exp(safe - lse))
            """, "scaled_dot_product_attention": """
            scale = q.size(-1) ** -0.5
            scores = torch.einsum("...id,...jd->...ij", q, k) * scale
            if mask is not None:
                scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
            weights = softmax(scores, dim=-1)
            out = torch.einsum("...ij,...jd->...id", weights, v)
            return out, weights
            """},
    ),
    dict(
        name="online_chunks", kind="helper_honest",
        method="FlashAttention-style online softmax: running max and rescaled running sum over chunks of the axis, then one normalising pass; nanoGPT-style attention",
        bodies={"softmax": """
            xt = x.movedim(dim, -1)
            n = xt.size(-1)
            m = xt.new_full(xt.shape[:-1] + (1,), float("-inf"))
            l = xt.new_zeros(xt.shape[:-1] + (1,))
            for start in range(0, n, 4):
                blk = xt[..., start:start + 4]
                m_new = torch.maximum(m, blk.amax(dim=-1, keepdim=True))
                shift = torch.where(torch.isneginf(m_new), torch.zeros_like(m_new), m_new)
                l = l * torch.exp(m - shift) + torch.exp(blk - shift).sum(dim=-1, keepdim=True)
                m = m_new
            shift = torch.where(torch.isneginf(m), torch.zeros_like(m), m)
            l = torch.where(l == 0, torch.ones_like(l), l)
            return (torch.exp(xt - shift) / l).movedim(-1, dim)
            """, "scaled_dot_product_attention": """
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            if mask is not None:
                att = att.masked_fill(mask == 0, float("-inf"))
            att = softmax(att, dim=-1)
            y = att @ v
            return y, att
            """},
    ),
]
for v in VARIANTS:
    if v["kind"] == "helper_honest":
        v["kind"] = "honest"
    if "expect_more" in v:
        v["expect"] = v["expect"] + v.pop("expect_more")
