"""Exercise 3 — Scale by √d_k: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, Randn


def perf_cases(B, H, L, d_head):
    q, scores = Randn((B, H, L, d_head)), Randn((B, H, L, L))
    return [Case("scale_scores", (scores, d_head)), Case("scaled_scores", (q, q))]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    scores, q, k = r.randn(2, 3, 5, 7, scale=8.0), r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6)
    yield "scale_scores", ref.scale_scores(scores, 6), oracle.scale_scores(scores, 6)
    yield "scaled_scores", ref.scaled_scores(q, k), oracle.scaled_scores(q, k)


EXERCISE = Exercise(
    title="Scale by √d_k",
    section="Why divide by √d_k?",
    names=("scale_scores", "scaled_scores"),
    shapes={"scale_scores": Shapes(args=("scores: ... L_q L_k", "d_k")),
            "scaled_scores": Shapes(args=("q: ... L_q d_k", "k: ... L_k d_k"))},
    rules=(
        Rule("scores / √d_k", ("test_scale_scores_values", "test_zero_and_huge_scores"),
             breaks=("return scores / math.sqrt(d_k)", "return scores / math.isqrt(d_k)")),
        Rule("Scores of every query against every key, scaled: Q K^T / √d_k", ("test_scaled_scores_shapes",)),
        Rule("d_k is the width of the queries, q.size(-1)", ("test_scaled_scores_width",)),
        Rule("Dividing by √d_k brings the spread back to about 1 at every width", ("test_scaled_scores_keeps_unit_spread",)),
        Rule("leaves its inputs unchanged", ("test_inputs_not_modified",)),
        Rule("Returns a new tensor (..., L_q, L_k)", ("test_inputs_not_modified",),
             breaks=("return scores / math.sqrt(d_k)", "return scores if d_k == 1 else scores / math.sqrt(d_k)")),
        Rule("and on their device", ("test_scaling_stays_on_the_inputs_device",)),
        Rule("returns tensors in the inputs' dtype", ("test_scale_scores_values",)),
        Rule("autograd through your code gives the chapter's gradients", ("test_gradients",)),
    ),
    reference=("steps",),
    forbidden=(),
    perf=Perf(sizes={"cpu": dict(B=2, H=8, L=128, d_head=32), "cuda": dict(B=4, H=8, L=512, d_head=64)},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

The raw scores of exercise 2 grow with the width $d_k$. If the entries of $q$ and $k$ are
independent with mean 0 and variance 1 (roughly true when training starts), each term of

$$q \cdot k = \sum_{m=0}^{d_k - 1} q_m k_m$$

has mean 0 and variance $1 \times 1 = 1$, and the variance of a sum of independent terms is the sum
of their variances:

$$\operatorname{Var}(q \cdot k) = d_k, \qquad \operatorname{std}(q \cdot k) = \sqrt{d_k}$$

At $d_k = 64$ typical scores are about $\pm 8$. Softmax (exercise 5) turns a gap between two
scores into a ratio between their weights, $e^{s_a - s_b}$: a gap of 16 gives
$e^{16} \approx 8.9 \times 10^6$, a hard argmax with no blending and almost no gradient. Dividing by
$\sqrt{d_k}$ brings the spread back to about 1 at every width:

$$\tilde S = \frac{Q K^\top}{\sqrt{d_k}}$$

## Shapes

`scale_scores(scores, d_k)`: scores $(\dots, L_q, L_k)$ and an int $d_k$, returns the same shape.
`scaled_scores(q, k)`: $q$ $(\dots, L_q, d_k)$ and $k$ $(\dots, L_k, d_k)$ give $(\dots, L_q, L_k)$, with
$d_k$ read from the queries' last dimension.

## A worked example

"sat"'s raw scores were $[0, 5, 1, 2]$ at $d_k = 3$, so

$$\tilde s_{\text{sat}} = \frac{[0, 5, 1, 2]}{\sqrt 3} \approx [\,0,\ 2.89,\ 0.58,\ 1.15\,]$$

**Read in the chapter:** "Why divide by √d_k?".
""",
)
