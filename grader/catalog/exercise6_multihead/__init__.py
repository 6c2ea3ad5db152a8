"""Exercise 6 — Multi-head attention: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Case, Randn


def perf_cases(layers):
    """(B, L, d_model, heads) per case: a batch, where recomputing a projection shows, and one short
    sequence, where a Python loop over the heads does."""
    return [Case("MultiHeadAttention", (Randn((B, L, D)),), init=(D, H), fused=True) for B, L, D, H in layers]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    x, q = r.randn(2, 5, 12), r.randn(2, 3, 5, 6)
    mha = r.module(ref.MultiHeadAttention, 12, 3)
    yield "split_heads", ref.split_heads(x, 3), oracle.split_heads(x, 3)
    yield "merge_heads", ref.merge_heads(q), oracle.merge_heads(q)
    yield ("MultiHeadAttention", mha(x),
           oracle.multi_head_attention(x, mha.qkv.weight, mha.qkv.bias, mha.out.weight, mha.out.bias, 3))


def builtin_checks(r):
    """lumen_ref's MultiHeadAttention against torch's nn.MultiheadAttention, for `lumen-grade check`."""
    import torch

    import lumen_ref as ref

    x, mha = r.randn(2, 5, 12), r.module(ref.MultiHeadAttention, 12, 3)
    theirs = torch.nn.MultiheadAttention(12, 3, batch_first=True).to(r.device, torch.float64)
    theirs.in_proj_weight.copy_(mha.qkv.weight)  # both stack W_Q, W_K, W_V as rows
    theirs.in_proj_bias.copy_(mha.qkv.bias)
    theirs.out_proj.weight.copy_(mha.out.weight)
    theirs.out_proj.bias.copy_(mha.out.bias)
    causal = ref.causal_mask(5, device=r.device)
    yield "MultiHeadAttention", mha(x), theirs(x, x, x, attn_mask=~causal, need_weights=False)[0]  # True = may NOT attend


EXERCISE = Exercise(
    title="Multi-head attention",
    section="Multi-head attention",
    names=("split_heads", "merge_heads", "MultiHeadAttention"),
    shapes={"split_heads": Shapes(args=("x: B L D", "n_heads: H"), derived=lambda s: {"d_k": s["D"] // s["H"]}),
            "merge_heads": Shapes(args=("x: B H L d_k",), derived=lambda s: {"D": s["H"] * s["d_k"]}),
            "MultiHeadAttention": Shapes(made=("d_model: D", "n_heads: H"), args=("x: B L D",),
                                         derived=lambda s: {"d_k": s["D"] // s["H"]})},
    rules=(
        Rule("[b, h, l] is columns h*d_head .. (h+1)*d_head - 1 of token l", ("test_split_heads_values",
                                                                              "test_split_heads_shapes")),
        Rule("for each token, head 0's d_head numbers, then head 1's", ("test_merge_heads_values",
                                                                        "test_merge_heads_shapes")),
        Rule("Undo split_heads", ("test_merge_undoes_split",)),
        Rule("must learn exactly two layers, and its state dict hold nothing else", ("test_constructor_parameters",)),
        Rule("Steps: qkv, split into q, k, v, split_heads each, attention, merge_heads, out.", ("test_forward_values",)),
        Rule("x: (B, L, D) -> (B, L, D)", ("test_forward_shapes",)),
        Rule("mask: None for causal attention", ("test_no_peeking_at_the_future", "test_one_module_at_several_lengths"),
             breaks=("            mask = causal_mask(L, x.device)  #",
                     "            mask = self.__dict__.setdefault('first_mask', causal_mask(L, x.device))  #")),
        Rule("A given mask replaces the causal one", ("test_explicit_mask",)),
        Rule("its heads give zeros, not NaN", ("test_fully_masked_rows",),
             breaks=("        weights = weights.masked_fill(~mask, 0.0)", "        pass")),
        Rule("leaves its inputs unchanged", ("test_inputs_not_modified",)),
        Rule("in x's dtype and device", ("test_forward_values", "test_forward_stays_on_the_inputs_device")),
        Rule("float16 and bfloat16 too", ("test_half_precision",)),
        Rule("autograd through your code gives the chapter's gradients", ("test_split_merge_gradients", "test_gradients")),
    ),
    reference=("steps", "attention"),
    forbidden=("fused-attention", "multihead-attention"),
    perf=Perf(sizes={"cpu": dict(layers=((2, 64, 512, 8), (1, 16, 256, 16))),
                     "cuda": dict(layers=((4, 512, 512, 8), (1, 16, 256, 16)))},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    builtin_checks=builtin_checks,
    introduction=r"""
## What this step computes

One softmax gives each token one weighting of the context. Multi-head attention runs $h$
attentions side by side, each with its own slice of the projections, so one head can look for
the subject while another looks at the previous word, and mixes their results with $W_O$:

$$\operatorname{MultiHead}(X) = \operatorname{Concat}(\text{head}_0, \dots, \text{head}_{h-1})\, W_O,
\qquad \text{head}_i = \operatorname{Attention}(X W_Q^{(i)}, X W_K^{(i)}, X W_V^{(i)})$$

To keep the cost of one full-width head, each head is narrower: $d_{head} = d_{model} / h$.
$W_Q^{(i)}$ is columns $i\,d_{head} \dots (i+1)\,d_{head} - 1$ of $W_Q$, so all heads' queries come
out of one product $X W_Q$ and are then cut apart (and the same for keys and values).

## Shapes: the split and the merge

`split_heads` turns $(B, L, D)$ into $(B, H, L, d_{head})$ in two moves:

1. `view(B, L, H, d_head)`: each token's $D$ numbers read as $H$ chunks of $d_{head}$ (no data moves);
2. `transpose(1, 2)`: the head axis before the token axis, so that the attention of exercise 5
   sees $(B, H)$ as batch dimensions and runs all $B \cdot H$ attentions in one call.

The transpose is what keeps each head's tokens together: a `view(B, H, L, d_head)` straight from
$(B, L, D)$ would also have the right shape, but head 0 would then hold the first $L/H$ tokens'
numbers instead of every token's first $d_{head}$ numbers.

`merge_heads` undoes it: `transpose(1, 2)` back to $(B, L, H, d_{head})$, then
`.contiguous().view(B, L, H * d_head)`: head 0's $d_{head}$ numbers, then head 1's, and so on
(the concatenation). `.contiguous()` is needed because a transpose only changes how memory is
read, and `view` needs the memory in the new order.

| tensor | shape (GPT-2 small: $B = 2$, $L = 1024$, $D = 768$, $H = 12$) |
|---|---|
| $x$ | $(B, L, D)$ = (2, 1024, 768) |
| `qkv(x)` | $(B, L, 3D)$ = (2, 1024, 2304), split into three $(B, L, D)$ |
| $q, k, v$ after `split_heads` | $(B, H, L, d_{head})$ = (2, 12, 1024, 64) |
| causal mask | $(L, L)$, broadcast over $(B, H)$ |
| attention output | $(B, H, L, d_{head})$ |
| after `merge_heads`, and after `out` | $(B, L, D)$ |

**Read in the chapter:** "Multi-head attention", "Splitting the model width into heads" and the
multi-head part of "Implementation walkthrough in PyTorch".
""",
)
