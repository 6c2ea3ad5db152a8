"""Exercise 5 — Softmax and scaled dot-product attention: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, CausalMask, CausalScores, Randn


def perf_cases(B, H, L, d_head):
    q = Randn((B, H, L, d_head))
    return [Case("softmax", (CausalScores((B, H, L, L)),)),
            Case("scaled_dot_product_attention", (q, q, q, CausalMask(L)), fused=True)]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    q, k, v = r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6), r.randn(2, 3, 7, 4)
    scores, mask = r.randn(2, 3, 5, 7, scale=8.0), r.bools(2, 1, 5, 7)
    mask[0, 0, 2] = False  # a query that may see no key: zeros, not NaN
    masked = ref.apply_mask(scores * 1e3, mask)  # huge scores and whole rows of -inf
    for dim in (-1, 1):
        yield f"softmax(dim={dim})", ref.softmax(masked, dim=dim), oracle.softmax(masked, axis=dim)
    yield ("scaled_dot_product_attention", ref.scaled_dot_product_attention(q, k, v, mask),
           oracle.scaled_dot_product_attention(q, k, v, mask))


def builtin_checks(r):
    """lumen_ref against torch's own softmax and fused attention, for `lumen-grade check`."""
    import torch
    import torch.nn.functional as F

    import lumen_ref as ref

    scores, q, k, v = r.randn(2, 3, 5, 7, scale=8.0), r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6), r.randn(2, 3, 7, 4)
    mask = r.bools(2, 1, 5, 7)
    mask[..., 0] = True  # every query sees a key: torch's answer for an empty row is NaN
    causal = ref.causal_mask(5, device=r.device)
    yield "softmax", ref.softmax(scores, dim=-1), torch.softmax(scores, dim=-1)
    yield "softmax(dim=1)", ref.softmax(scores, dim=1), torch.softmax(scores, dim=1)
    yield ("scaled_dot_product_attention", ref.scaled_dot_product_attention(q, k, v, mask)[0],
           F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    yield ("causal attention", ref.scaled_dot_product_attention(q, q, v[..., :5, :], causal)[0],
           F.scaled_dot_product_attention(q, q, v[..., :5, :], is_causal=True))


EXERCISE = Exercise(
    title="Softmax and scaled dot-product attention",
    section="Step 4 — Softmax: turn scores into weights",
    names=("softmax", "scaled_dot_product_attention"),
    shapes={"softmax": Shapes(args=("x: ... L",)),
            "scaled_dot_product_attention": Shapes(args=("q: ... L_q d_k", "k: ... L_k d_k", "v: ... L_k d_v"))},
    rules=(
        Rule("each slice along `dim` is non-negative and sums to 1", ("test_softmax_values",
                                                                      "test_softmax_zero_and_single_scores")),
        Rule("dim: the dimension that sums to 1", ("test_softmax_any_dim",)),
        Rule("e^{1e4} overflows to inf", ("test_softmax_huge_scores", "test_attention_huge_scores")),
        Rule("a slice that is entirely -inf, which gives all zeros (not NaN)", ("test_softmax_fully_masked_slice",),
             breaks=("return e / total.masked_fill(total == 0, 1.0)", "return e / total")),
        Rule("with finite gradients too", ("test_softmax_gradients_fully_masked_slice", "test_gradients_with_fully_masked_row")),
        Rule("the gradient w.r.t. every entry of that slice is 0", ("test_softmax_gradients_fully_masked_slice",)),
        Rule("and the gradients through it are zeros, not NaN", ("test_gradients_with_fully_masked_row",
                                                                 "test_gradients_with_padding")),
        Rule("softmax(Q K^T / √d_k) V", ("test_attention_values", "test_attention_zero_scores")),
        Rule("q: (..., L_q, d_k) k: (..., L_k, d_k) v: (..., L_k, d_v)", ("test_attention_shapes",)),
        Rule("a bool tensor on q's device broadcastable to (..., L_q, L_k)", ("test_causal_mask_broadcasts",
                                                                              "test_padding_mask_broadcasts")),
        Rule("a query whose mask row is all False gets zero weights and a zero output", ("test_fully_masked_rows",)),
        Rule("leaves its inputs unchanged", ("test_inputs_not_modified",)),
        Rule("Returns a new tensor of x's shape, dtype and device", ("test_inputs_not_modified",)),
        Rule("returns tensors in the inputs' dtype", ("test_softmax_values", "test_attention_values")),
        Rule("and on their device", ("test_stays_on_the_inputs_device",)),
        Rule("float16 and bfloat16 too", ("test_half_precision",)),
        Rule("autograd through your code gives the chapter's gradients", ("test_softmax_gradients", "test_attention_gradients", "test_gradients_with_padding")),
    ),
    reference=("steps", "attention"),
    forbidden=("softmax", "fused-attention", "multihead-attention"),
    perf=Perf(sizes={"cpu": dict(B=2, H=8, L=128, d_head=32), "cuda": dict(B=4, H=8, L=512, d_head=64)},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    builtin_checks=builtin_checks,
    introduction=r"""
## What this step computes

Softmax turns a row of scores into weights, non-negative and summing to 1:

$$\operatorname{softmax}(s)_j = \frac{e^{s_j}}{\sum_m e^{s_m}}$$

Two things make it safe to use:

- **Stability.** $e^{1000}$ overflows to `inf`. With $c = \max_m s_m$,
  $$\operatorname{softmax}(s)_j = \frac{e^{s_j - c}}{\sum_m e^{s_m - c}}$$
  is the same number (the $e^{-c}$ cancels) and every exponential is at most 1.
- **Fully masked rows.** A row that is all $-\infty$ (a query that may see no key) has
  $c = -\infty$ and $0/0$ everywhere. Its weights must be all zeros: shift by 0 where the maximum
  is $-\infty$, and divide by 1 where the sum is 0.

Then the whole of single-head attention, the chapter's formula, with the mask $M$ of exercise 4:

$$\operatorname{Attention}(Q, K, V) = \operatorname{softmax}\!\Big(\frac{Q K^\top}{\sqrt{d_k}} \text{ masked by } M\Big)\, V$$

Row $i$ of the output is a blend of the value rows, weighted by how well query $i$ matched each key.

**Off limits in this exercise** (the grader refuses them while your code runs): every torch
function whose name contains `softmax` (`torch.softmax`, `torch.nn.functional.softmax` and
`log_softmax`, `Tensor.softmax`, `torch.special.softmax`, `nn.Softmax`, `torch.ops.aten._softmax`,
...) and torch's fused attention (`torch.nn.functional.scaled_dot_product_attention`,
`nn.MultiheadAttention`), and as in every exercise the answer key (`lumen_ref`, `solutions/`) and
the grader's own code. Everything else is allowed: `torch.exp`, `amax`, `sum`, `masked_fill`,
`torch.where`, and `torch.logsumexp` too.

## Shapes

| function | takes | returns |
|---|---|---|
| `softmax(x, dim=-1)` | float, any shape, may hold $-\infty$ | x's shape, dtype and device |
| `scaled_dot_product_attention(q, k, v, mask=None)` | $q$ $(\dots, L_q, d_k)$, $k$ $(\dots, L_k, d_k)$, $v$ $(\dots, L_k, d_v)$, bool mask broadcastable to $(\dots, L_q, L_k)$ | output $(\dots, L_q, d_v)$ and weights $(\dots, L_q, L_k)$ |

## A worked example

"sat"'s scaled scores $[0, 2.89, 0.58, 1.15]$ (no mask):
$e^{0} = 1$, $e^{2.89} \approx 17.93$, $e^{0.58} \approx 1.78$, $e^{1.15} \approx 3.17$; the sum is
$\approx 23.89$, so

$$a_{\text{sat}} \approx [\,0.042,\ 0.751,\ 0.075,\ 0.133\,]$$

"sat" takes 75% of what it reads from "cat". With exercise 1's values the output is

$$0.042\,[0,0,2] + 0.751\,[2,1,0] + 0.075\,[0,1,2] + 0.133\,[1,0,0] \approx [\,1.63,\ 0.83,\ 0.23\,]$$

**Read in the chapter:** "Step 4 — Softmax: turn scores into weights", then "Step 5 — Weighted sum of values" and "The matrix form".
""",
)
