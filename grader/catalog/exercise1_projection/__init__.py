"""Exercise 1 — Project: queries, keys and values: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, Randn


def perf_cases(B, L, D):
    x, w = Randn((B, L, D)), Randn((D, D), D ** -0.5)  # weights keep outputs O(1): float32 stays accurate
    return [Case("project", (x, w, w, w)), Case("fused_project", (x, Randn((D, 3 * D), D ** -0.5)))]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    x, w_qkv = r.randn(2, 5, 12), r.randn(12, 18)
    w_q, w_k, w_v = r.randn(12, 6), r.randn(12, 6), r.randn(12, 4)
    yield "project", ref.project(x, w_q, w_k, w_v), oracle.project(x, w_q, w_k, w_v)
    yield "fused_project", ref.fused_project(x, w_qkv), oracle.fused_project(x, w_qkv)


EXERCISE = Exercise(
    title="Project: queries, keys and values",
    section="Step 1 — Project: make a query, keys and values",
    names=("project", "fused_project"),
    shapes={"project": Shapes(args=("x: ... L D", "w_q: D d_k", "w_k: D d_k", "w_v: D d_v")),
            "fused_project": Shapes(args=("x: ... L D", "w_qkv: D d_qkv"), derived=lambda s: {"d_k": s["d_qkv"] // 3})},
    rules=(
        Rule("Q = X W_Q K = X W_K V = X W_V", ("test_project_values", "test_project_napkin_example",
                                               "test_project_identity_zero_and_huge_weights"),
             breaks=("    k = x @ w_k  #", "    k = x @ w_q  #")),
        Rule("from ONE matrix product", ("test_fused_project_is_one_matrix_product",),
             breaks=("    qkv = x @ w_qkv  #", "    qkv = torch.cat([x @ w for w in w_qkv.chunk(3, dim=-1)], dim=-1)  #")),
        Rule("identical to project(x, W_Q, W_K, W_V)", ("test_fused_project_values", "test_fused_project_napkin_example")),
        Rule("columns 0..d-1 are W_Q, d..2d-1 are W_K, 2d..3d-1 are W_V", ("test_fused_project_values",),
             breaks=("q, k, v = qkv.split(d, dim=-1)", "k, q, v = qkv.split(d, dim=-1)")),
        Rule("Any number of leading batch dims", ("test_project_shapes", "test_fused_project_shapes")),
        Rule("laid out in memory in any order", ("test_projections_take_a_transposed_batch",),
             breaks=("    q = x @ w_q  #", "    q = (x.view(-1, x.shape[-1]) @ w_q).view(*x.shape[:-1], -1)  #")),
        Rule("leaves its inputs unchanged", ("test_project_inputs_not_modified", "test_fused_project_inputs_not_modified")),
        Rule("and on their device", ("test_projections_stay_on_the_inputs_device",),
             breaks=("    q = x @ w_q  #", "    q = x @ w_q + torch.zeros(w_q.shape[-1], dtype=x.dtype)  #")),
        Rule("returns tensors in the inputs' dtype", ("test_project_values", "test_fused_project_values")),
        Rule("float16 and bfloat16 too", ("test_project_half_precision", "test_fused_project_half_precision")),
        Rule("autograd through your code gives the chapter's gradients", ("test_project_gradients", "test_fused_project_gradients"),
             breaks=("    q = x @ w_q  #", "    q = x @ w_q.detach()  #")),
    ),
    reference=("steps",),
    forbidden=(),
    watched=("fused_project",),
    perf=Perf(sizes={"cpu": dict(B=4, L=128, D=256), "cuda": dict(B=4, L=512, D=512)},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

Every token plays three parts: it asks a question (its **query**), it wears a label that others'
questions are compared with (its **key**), and it carries the content that others take away when
they attend to it (its **value**). All three are learned linear maps of the token's embedding.
Stack the $L$ embeddings of a sequence as the rows of $X$ and each map is one matrix product:

$$Q = X W_Q, \qquad K = X W_K, \qquad V = X W_V$$

Row $i$ of $Q$ is token $i$'s query $q_i = x_i W_Q$ (a row vector times a matrix), and the same
for the keys and values. The three weight matrices are shared by every token.

## Shapes

| tensor | shape |
|---|---|
| $X$ | $(\dots, L, d_{model})$: one row per token, any batch dimensions in front |
| $W_Q$, $W_K$ | $(d_{model}, d_k)$: queries and keys have the same width, as they are compared by dot product |
| $W_V$ | $(d_{model}, d_v)$ |
| $Q$, $K$ | $(\dots, L, d_k)$ |
| $V$ | $(\dots, L, d_v)$ |

`fused_project` does the three products as one, the way real models store the weights: the three
matrices side by side in one $W_{QKV} = [\,W_Q \mid W_K \mid W_V\,]$ of shape $(d_{model}, 3d)$, so that
$X W_{QKV}$ has shape $(\dots, L, 3d)$ and its last dimension cut into three equal parts gives
$Q$, $K$ and $V$ (columns $0 \dots d-1$, $d \dots 2d-1$ and $2d \dots 3d-1$).

## A worked example

The chapter's napkin example, "The cat sat down" at $d = 3$. The chapter gives only the results;
these matrices (the ones the grader's napkin test uses) are one choice that produces them:

$$X = \begin{pmatrix} 0 & 0 & 1 \\ 2 & 1 & 0 \\ 0 & 1 & 1 \\ 1 & 0 & 0 \end{pmatrix}
\begin{matrix} \text{The} \\ \text{cat} \\ \text{sat} \\ \text{down} \end{matrix}
\qquad
W_Q = \begin{pmatrix} 1 & 0 & 1 \\ 1 & 1 & 0 \\ 0 & 1 & 0 \end{pmatrix}
\quad
W_K = \begin{pmatrix} 0 & 1 & 0 \\ 1 & 0 & 0 \\ 0 & 0 & 1 \end{pmatrix}
\quad
W_V = \begin{pmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 2 \end{pmatrix}$$

"sat" is $x_{\text{sat}} = [0, 1, 1]$, so its query is the sum of rows 1 and 2 of $W_Q$:

$$q_{\text{sat}} = [0, 1, 1]\, W_Q = [1, 1, 0] + [0, 1, 0] = [1, 2, 0]$$

and the keys and values of the four tokens are

$$K = X W_K = \begin{pmatrix} 0 & 0 & 1 \\ 1 & 2 & 0 \\ 1 & 0 & 1 \\ 0 & 1 & 0 \end{pmatrix}
\qquad
V = X W_V = \begin{pmatrix} 0 & 0 & 2 \\ 2 & 1 & 0 \\ 0 & 1 & 2 \\ 1 & 0 & 0 \end{pmatrix}$$

"cat"'s key $[1, 2, 0]$ is exactly the question "sat" asks: exercise 2 scores that match.

**Read in the chapter:** "Step 1 — Project: make a query, keys and values", then "The matrix form".
""",
)
