"""Exercise 4 — Causal and padding masks: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, CausalMask, Length, Lengths, Randn


def perf_cases(B, H, L, sequences, mask_lengths):
    """The masks made and applied: the causal mask at a length drawn afresh each round (its only
    input), the padding mask of many sequences, so that each call does enough work for a clock to see
    (a few microseconds' call is timed mostly on its noise). A tier times calls, not an import: a
    mask made once and sliced at each call (nanoGPT's causal buffer; a table of padding rows looked
    up by length) is a fair way to be fast, however slowly it was made (round 62's a01 and a05)."""
    return [Case("causal_mask", (Length(*mask_lengths),)), Case("apply_mask", (Randn((B, H, L, L)), CausalMask(L))),
            Case("padding_mask", (Lengths(sequences, L), L))]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import torch

    import lumen_ref as ref
    from grader import oracle

    scores, mask = r.randn(2, 3, 5, 7, scale=8.0), r.bools(2, 1, 5, 7)
    mask[0, 0, 2] = False  # a query that may see no key
    lengths = torch.tensor([3, 0, 7], device=r.device)
    yield "causal_mask", ref.causal_mask(7, device=r.device), oracle.causal_mask(7)
    yield "apply_mask", ref.apply_mask(scores * 1e3, mask), oracle.apply_mask(scores * 1e3, mask)
    yield "padding_mask", ref.padding_mask(lengths, 7), oracle.padding_mask(lengths.tolist(), 7)


EXERCISE = Exercise(
    title="Causal and padding masks",
    section="Causal masking: no peeking at the future",
    names=("causal_mask", "apply_mask", "padding_mask"),
    shapes={"causal_mask": Shapes(args=("L",)), "apply_mask": Shapes(args=("scores: ... L_q L_k",)),
            "padding_mask": Shapes(args=("lengths: B", "L"))},
    rules=(
        Rule("True on and below the diagonal, False above it", ("test_causal_mask", "test_no_peeking_at_the_future")),
        Rule("device: where to make the mask", ("test_masks_stay_on_the_inputs_device",),
             breaks=("dtype=torch.bool, device=device))", "dtype=torch.bool))")),
        Rule("scores where mask is True, -inf where it is False", ("test_apply_mask_values",
                                                                   "test_apply_mask_keeps_huge_and_zero_scores")),
        Rule("broadcastable to scores' shape, e.g. (L_q, L_k) or (B, 1, L_k)",
             ("test_apply_mask_padding_broadcast", "test_apply_mask_queries_ne_keys")),
        Rule("A row whose mask is all False becomes all -inf", ("test_apply_mask_fully_masked_rows",)),
        Rule("`scores` itself is left untouched", ("test_apply_mask_not_in_place",),
             breaks=("return scores.masked_fill(~mask", "return scores.masked_fill_(~mask")),
        Rule("float, any dtype and device", ("test_apply_mask_half_precision",)),
        Rule("0 <= lengths[b] <= L (the longest may be shorter than L)", ("test_padding_mask",)),
        Rule("on lengths' device", ("test_masks_stay_on_the_inputs_device",)),
        Rule("autograd through your code gives the chapter's gradients", ("test_apply_mask_gradients",)),
    ),
    reference=("attention", "steps"),
    forbidden=(),
    perf=Perf(sizes={"cpu": dict(B=2, H=8, L=128, sequences=64, mask_lengths=(128, 2048)),
                     "cuda": dict(B=4, H=8, L=512, sequences=64, mask_lengths=(512, 4096))},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

A mask says, for every (query, key) pair, whether the query may read the key: `True` = may
attend, `False` = must not. Before the softmax every score where the mask is `False` becomes
$-\infty$; since $e^{-\infty} = 0$ those keys get exactly zero weight, and the weights left in each
row still sum to 1:

$$\tilde S'_{ij} = \begin{cases} \tilde S_{ij} & \text{if } M_{ij} \\ -\infty & \text{otherwise} \end{cases}$$

Positions count from 0, as in the code: token 0 is the first.

**The causal mask.** A language model predicts token $i + 1$ from tokens $0 \dots i$, so token $i$
must not read the tokens after it:

$$M_{ij} = \begin{cases} \text{True} & j \le i \\ \text{False} & j > i \end{cases}
\qquad L = 4:\quad
\begin{pmatrix} 1 & 0 & 0 & 0 \\ 1 & 1 & 0 & 0 \\ 1 & 1 & 1 & 0 \\ 1 & 1 & 1 & 1 \end{pmatrix}$$

It depends only on $L$: the lower triangle, diagonal included (`torch.tril`). The diagonal
guarantees every row at least one key.

**The padding mask.** A batch holds sequences of different lengths, padded at the end to a common
length $L$. Sequence $b$ has `lengths[b]` real tokens; its keys $j \ge$ `lengths[b]` are padding,
and no query may read them:

$$P_{b,0,j} = \big(j < \text{lengths}[b]\big)$$

Its shape is $(B, 1, L)$: the middle axis of size 1 is the query axis, and broadcasting copies the
same row of allowed keys to every query of sequence $b$ when it meets scores of shape
$(B, L_q, L)$. (With heads, scores $(B, H, L_q, L)$ take `padding_mask(lengths, L)[:, None]`, of
shape $(B, 1, 1, L)$.) For `lengths = [3, 1]` and $L = 4$:

$$P = \Big[\, [\,[1, 1, 1, 0]\,],\ \ [\,[1, 0, 0, 0]\,] \,\Big]$$

The two masks combine with a logical and, `causal_mask(L) & padding_mask(lengths, L)`, shape
$(B, L, L)$. A query may then see no key at all (a sequence of length 0): its row is all
$-\infty$, and exercise 5's softmax must turn it into zeros, not $0/0 =$ NaN.

## Shapes

| function | takes | returns |
|---|---|---|
| `causal_mask(L, device)` | an int | bool $(L, L)$ on `device` |
| `apply_mask(scores, mask)` | float $(\dots, L_q, L_k)$, bool broadcastable to it | a new float tensor $(\dots, L_q, L_k)$; `scores` unchanged |
| `padding_mask(lengths, L)` | int $(B,)$, an int | bool $(B, 1, L)$ on `lengths`' device |

## A worked example

With the causal mask, "sat" (token 2) may no longer read "down" (token 3): its scaled scores
$[0, 2.89, 0.58, 1.15]$ become $[0, 2.89, 0.58, -\infty]$.

**Read in the chapter:** "Causal masking: no peeking at the future".
""",
)
