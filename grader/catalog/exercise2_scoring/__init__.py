"""Exercise 2 — Score every key: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, Randn


def perf_cases(B, H, L, d_head):
    q = Randn((B, H, L, d_head))
    return [Case("attention_scores", (q, q))]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    q, k = r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6)
    yield "attention_scores", ref.attention_scores(q, k), oracle.attention_scores(q, k)


EXERCISE = Exercise(
    title="Score every key",
    section="Step 2 — Score every key",
    names=("attention_scores",),
    shapes={"attention_scores": Shapes(args=("q: ... L_q d_k", "k: ... L_k d_k"))},
    rules=(
        Rule("S[..., i, j] = q_i · k_j", ("test_scores_values", "test_scores_napkin_example", "test_scores_zero_and_huge")),
        Rule("the number of queries L_q and of keys L_k need not be equal", ("test_scores_shapes",)),
        Rule("leaves its inputs unchanged", ("test_inputs_not_modified",)),
        Rule("and on their device", ("test_scores_stay_on_the_inputs_device",)),
        Rule("returns tensors in the inputs' dtype", ("test_scores_values",)),
        Rule("float16 and bfloat16 too", ("test_half_precision",)),
        Rule("autograd through your code gives the chapter's gradients", ("test_gradients",)),
    ),
    reference=("steps",),
    forbidden=(),
    perf=Perf(sizes={"cpu": dict(B=4, H=8, L=128, d_head=32), "cuda": dict(B=4, H=8, L=512, d_head=64)},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

How well does query $i$ match key $j$? Their dot product, which is large when the two vectors
point the same way and cheap to compute:

$$S_{ij} = q_i \cdot k_j = \sum_{m=0}^{d_k - 1} Q_{im} K_{jm}$$

For every query against every key at once this is one matrix product with the keys transposed:

$$S = Q K^\top$$

Row $i$ of $S$ holds query $i$'s scores against all the keys. (Scaling them is exercise 3.)

## Shapes

| tensor | shape |
|---|---|
| $Q$ | $(\dots, L_q, d_k)$ |
| $K$ | $(\dots, L_k, d_k)$ |
| $K^\top$ | $(\dots, d_k, L_k)$: only the last two dimensions swap, batch dimensions stay in front |
| $S$ | $(\dots, L_q, L_k)$ |

$L_q$ and $L_k$ need not be equal: during generation one new query is scored against every key
so far (exercise 8).

## A worked example

With exercise 1's napkin numbers, "sat" asks $q_{\text{sat}} = [1, 2, 0]$ and the four keys are
$[0,0,1]$, $[1,2,0]$, $[1,0,1]$ and $[0,1,0]$:

$$s_{\text{sat}} = \big[\, q \cdot k_{\text{The}},\; q \cdot k_{\text{cat}},\; q \cdot k_{\text{sat}},\; q \cdot k_{\text{down}} \,\big] = [\,0,\ 5,\ 1,\ 2\,]$$

"cat" scores highest ($1 \cdot 1 + 2 \cdot 2 + 0 \cdot 0 = 5$): its key is exactly what "sat" was
looking for.

**Read in the chapter:** "Step 2 — Score every key".
""",
)
