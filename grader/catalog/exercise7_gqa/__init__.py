"""Exercise 7 — Grouped-query attention: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, Randn


def perf_cases(layers):
    """(B, L, d_model, heads, KV heads) per case: a batch, and one short sequence (as exercise 6)."""
    return [Case("GroupedQueryAttention", (Randn((B, L, D)),), init=(D, H, H_kv), fused=True)
            for B, L, D, H, H_kv in layers]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    x, k = r.randn(2, 5, 12), r.randn(2, 3, 7, 6)
    gqa = r.module(ref.GroupedQueryAttention, 12, 4, 2)
    weights = [p.weight for p in (gqa.q_proj, gqa.k_proj, gqa.v_proj, gqa.o_proj)]
    yield "repeat_kv", ref.repeat_kv(k, 2), oracle.repeat_kv(k, 2)
    yield "GroupedQueryAttention", gqa(x), oracle.grouped_query_attention(x, *weights, 4, 2)


def builtin_checks(r):
    """lumen_ref's GroupedQueryAttention against torch's fused attention on repeated KV heads."""
    import torch
    import torch.nn.functional as F

    import lumen_ref as ref

    x, gqa = r.randn(2, 5, 12), r.module(ref.GroupedQueryAttention, 12, 4, 2)
    q, k, v = (p(x).view(2, 5, -1, 3).transpose(1, 2) for p in (gqa.q_proj, gqa.k_proj, gqa.v_proj))
    kv_head = torch.arange(4, device=r.device) // 2  # query head h reads KV head h // 2
    heads = F.scaled_dot_product_attention(q, k[:, kv_head], v[:, kv_head], is_causal=True)
    yield "GroupedQueryAttention", gqa(x), gqa.o_proj(heads.transpose(1, 2).reshape(2, 5, 12))


EXERCISE = Exercise(
    title="Grouped-query attention",
    section="Grouped-query and multi-query attention",
    names=("repeat_kv", "GroupedQueryAttention"),
    shapes={"repeat_kv": Shapes(args=("x: B H_kv L d_k", "n_rep"), derived=lambda s: {"H": s["H_kv"] * s["n_rep"]}),
            "GroupedQueryAttention": Shapes(made=("d_model: D", "n_heads: H", "n_kv_heads: H_kv"), args=("x: B L D",),
                                            derived=lambda s: {"d_k": s["D"] // s["H"]})},
    rules=(
        Rule("output head j is input head j // n_rep", ("test_repeat_kv_values", "test_repeat_kv_group_sizes")),
        Rule("exactly four bias-free linear layers", ("test_gqa_parameters",)),
        Rule("Steps: project q (H heads) and k, v (H_kv heads), split into heads, repeat_kv on k and v, attention, "
             "concatenate the heads, o_proj.", ("test_gqa_matches_reference", "test_gqa_large_scores",
                                               "test_gqa_single_token")),
        Rule("mask: None for causal attention", ("test_gqa_no_peeking",)),
        Rule("A given mask replaces the causal one", ("test_gqa_explicit_mask",)),
        Rule("its output is zeros, not NaN", ("test_gqa_fully_masked_rows", "test_gqa_gradients_fully_masked_rows"),
             breaks=("        weights = weights.masked_fill(~mask, 0.0)", "        pass")),
        Rule("the gradients through it are zeros, not NaN", ("test_gqa_gradients_fully_masked_rows",)),
        Rule("leaves its inputs unchanged", ("test_repeat_kv_input_not_modified", "test_gqa_input_not_modified")),
        Rule("in x's dtype and device", ("test_gqa_float64", "test_gqa_on_the_inputs_device")),
        Rule("A float64 input is computed in float64 all the way", ("test_gqa_float64",)),
        Rule("float16 and bfloat16 too", ("test_repeat_kv_half_precision", "test_gqa_half_precision")),
        Rule("autograd through your code gives the chapter's gradients", ("test_repeat_kv_gradients", "test_gqa_gradients")),
    ),
    reference=("steps", "attention"),
    forbidden=("fused-attention", "multihead-attention"),
    perf=Perf(sizes={"cpu": dict(layers=((2, 64, 512, 8, 2), (1, 16, 256, 16, 4))),
                     "cuda": dict(layers=((4, 512, 512, 8, 2), (1, 16, 256, 16, 4)))},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    builtin_checks=builtin_checks,
    introduction=r"""
## What this step computes

At generation time every layer keeps the keys and values of every token (exercise 8), and that
cache, not the weights, fills the GPU's memory. Queries are what make heads differ; keys and
values are the context's labels and content. Grouped-query attention keeps $h$ query heads but
only $h_{kv}$ key/value heads, each shared by a group of $h / h_{kv}$ query heads:

- $h_{kv} = h$: ordinary multi-head attention;
- $h_{kv} = 1$: multi-query attention, one key head and one value head for all;
- in between: the cache is $h / h_{kv}$ times smaller. Llama-2 70B and Llama-3 70B have $h = 64$
  query heads and $h_{kv} = 8$: each KV head serves 8 query heads.

The maths is exercise 6's with one extra step: repeat each KV head $n_{rep} = h / h_{kv}$ times so
that KV head $g$ lines up with its group of query heads $g\,n_{rep} \dots (g+1)\,n_{rep} - 1$.
Query head $j$ reads KV head $\lfloor j / n_{rep} \rfloor$:

$$\operatorname{repeat\_kv}(x)[:, j] = x[:, \lfloor j / n_{rep} \rfloor] \qquad
h_{kv} = 2,\ n_{rep} = 3:\ \text{heads } [0, 0, 0, 1, 1, 1] \text{ (not } [0, 1, 0, 1, 0, 1])$$

$W_K$ and $W_V$ shrink from $d_{model} \times d_{model}$ to $d_{model} \times h_{kv}\, d_{head}$ each.

## Shapes

| tensor | shape |
|---|---|
| $x$ | $(B, L, D)$ |
| `q_proj(x)` → queries | $(B, L, h\,d_{head})$ → $(B, h, L, d_{head})$ |
| `k_proj(x)`, `v_proj(x)` → keys, values | $(B, L, h_{kv}\,d_{head})$ → $(B, h_{kv}, L, d_{head})$ |
| after `repeat_kv(·, h / h_kv)` | $(B, h, L, d_{head})$, a new tensor (the input is left as it was) |
| output | $(B, L, D)$ after merging the heads and `o_proj` |

**Read in the chapter:** "Grouped-query and multi-query attention", and the grouped-query part of
"Implementation walkthrough in PyTorch".
""",
)
