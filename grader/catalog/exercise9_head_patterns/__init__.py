"""Exercise 9 — What heads learn: previous-token and induction heads, found by their patterns.

Untimed: the scores read one diagonal of small patterns, a step of analysis and not of a model's
forward pass; the chapter's sections make no claim about its cost, and a tier would time the
judge's own inputs more than the student's code.
"""

from grader.catalog import Exercise, Rule, Shapes


def oracle_checks(r):
    """The scores, find_heads and the hand-set model's patterns against grader.oracle."""
    import torch

    import lumen_ref as ref
    from grader import oracle

    scores = r.randn(2, 3, 10, 10, scale=2.0).masked_fill(~ref.causal_mask(10, device=r.device), float("-inf"))
    pattern = ref.softmax(scores, dim=-1)  # (2, 3, 10, 10): random causal weights
    model = ref.induction_model(vocab_size=12, max_len=10).to(r.device, torch.float64)
    tokens = ref.repeated_tokens(3, 5, 12, generator=torch.Generator().manual_seed(0)).to(r.device)
    with torch.no_grad():
        _, patterns = model(tokens)
    yield "previous_token_score", ref.previous_token_score(pattern), oracle.previous_token_score(pattern)
    yield "induction_score", ref.induction_score(pattern, 5), oracle.induction_score(pattern, 5)
    yield ("the hand-set model's patterns", patterns,
           oracle.attention_only_patterns(tokens, model.state_dict(), n_heads=3))
    for threshold in (0.4, 0.1):
        found, expected = ref.find_heads(patterns, threshold), oracle.find_heads(patterns, threshold)
        yield (f"find_heads(threshold={threshold})", [torch.tensor(found[kind]) for kind in sorted(found)],
               [torch.tensor(expected[kind]) for kind in sorted(expected)])


EXERCISE = Exercise(
    title="What heads learn",
    section="What heads learn",
    names=("repeated_tokens", "previous_token_score", "induction_score", "find_heads"),
    shapes={"repeated_tokens": Shapes(args=("batch: B", "seq_len", "vocab_size")),
            "previous_token_score": Shapes(args=("pattern: B H L L",)),
            "induction_score": Shapes(args=("pattern: B H L L", "seq_len")),
            "find_heads": Shapes(args=("patterns: B H L L",))},
    rules=(
        Rule("then the same seq_len tokens in the same order", ("test_repeated_tokens_repeat",)),
        Rule("drawn uniformly from 0 .. vocab_size - 1", ("test_repeated_tokens_cover_the_vocabulary",)),
        Rule("the same seed then gives the same tokens", ("test_repeated_tokens_use_the_generator",)),
        Rule("the mean of pattern[b, h, i, i - 1] over every b and every query i = 1 .. L-1",
             ("test_previous_token_score_planted", "test_scores_of_the_hand_set_model")),
        Rule("the mean of pattern[b, h, i, i - seq_len + 1] over every b and every query of the second half",
             ("test_induction_score_planted", "test_scores_of_the_hand_set_model")),
        Rule("Raises ValueError if pattern is not 4-D with its last two dims equal", ("test_bad_shapes_raise_value_error",)),
        Rule("an odd L is a ValueError", ("test_bad_shapes_raise_value_error",)),
        Rule("A head counts when its score is above the threshold: score > threshold", ("test_find_heads_threshold",),
             breaks=("if score[head] > threshold]", "if score[head] >= threshold]")),
        Rule("each list of (int, int) tuples in (layer, head) order", ("test_find_heads_planted",
                                                                       "test_find_heads_of_the_hand_set_model")),
        Rule("inputs are left unchanged", ("test_scores_leave_the_pattern_unchanged",)),
        Rule("Scores come back in the pattern's dtype and on its device",
             ("test_find_heads_float64_on_device", "test_scores_on_the_inputs_device", "test_scores_half_precision")),
    ),
    reference=("heads",),
    oracle_checks=oracle_checks,
    introduction=r"""
## What this step computes

Nothing in a transformer tells a head what to do, yet trained models have heads with stable,
recognisable jobs, and you can see them in their attention weights. A head's **pattern** is its
weights $A \in \mathbb{R}^{B \times H \times L \times L}$: row $i$ (query $i$) says how much token
$i$ reads from each key $j \le i$. Drawn as a picture (rows = queries, columns = keys, brightness =
weight), two jobs stand out. Positions count from 0.

**A previous-token head** reads the token just before: query $i$ puts its weight on key $i - 1$,
a bright sub-diagonal. Its score is the mean of those weights over the batch and the queries that
have a previous token:

$$\text{prev}_h = \frac{1}{B\,(L-1)} \sum_{b=0}^{B-1} \sum_{i=1}^{L-1} A_{b,h,i,i-1}$$

**An induction head** completes a repeat: seeing "… Mr Dursley … Mr", it finds the earlier "Mr",
reads the token after it, "Dursley", and copies it forward. To test it, take $T$ random tokens and
repeat them: $L = 2T$. Query $i$ of the second half ($i \ge T$) holds the same token as position
$i - T$, so an induction head reads key $i - T + 1$, a stripe $T - 1$ below the diagonal:

$$\text{ind}_h = \frac{1}{B\,T} \sum_{b=0}^{B-1} \sum_{i=T}^{2T-1} A_{b,h,i,i-T+1}$$

With $T = 4$ (tokens `7 2 9 4 7 2 9 4`), these are the cells each score averages.

```
 previous-token (key i-1)      induction (key i-T+1, second half)
 · · · · · · · ·               · · · · · · · ·
 █ · · · · · · ·               · · · · · · · ·
 · █ · · · · · ·               · · · · · · · ·
 · · █ · · · · ·               · · · · · · · ·
 · · · █ · · · ·               · █ · · · · · ·     query 4 (token 7) reads key 1 (token 2)
 · · · · █ · · ·               · · █ · · · · ·
 · · · · · █ · ·               · · · █ · · · ·
 · · · · · · █ ·               · · · · █ · · ·
```

A head does that job when its score is near 1; a head that spreads its weight, or parks it on
the first token, scores little on both. `find_heads` scores every head of every layer and keeps
those above a threshold (0.4 by default): the two lists a picture of each head would show you.

**The heads work together.** A previous-token head in an early layer writes "the token before me
was X" into each position's vector; an induction head in a later layer, on the second "Mr", asks
"whose previous token is Mr?" and finds "Dursley" (Olsson et al., 2022). The grader checks your
functions on the patterns of a two-layer attention-only transformer whose weights are set by hand
that way: a previous-token head at (layer 0, head 1) and an induction head at (layer 1, head 2).

## Shapes

| function | takes | returns |
|---|---|---|
| `repeated_tokens(batch, seq_len, vocab_size, generator=None)` | ints, a `torch.Generator` | int64 $(B, 2T)$, the second half the first again |
| `previous_token_score(pattern)` | $(B, H, L, L)$, $L \ge 2$ | $(H,)$ |
| `induction_score(pattern, seq_len)` | $(B, H, 2T, 2T)$, $T$ = `seq_len` | $(H,)$ |
| `find_heads(patterns, threshold=0.4)` | a list of $(B, H, L, L)$, one per layer | `{"previous_token": [(layer, head), …], "induction": […]}` |

A pattern of another shape is a `ValueError`. In `find_heads`, `seq_len` is $L / 2$ (an odd $L$ is
a `ValueError`), a head counts when its score is $>$ the threshold, and each list is in
(layer, head) order.

**Read in the chapter:** "What heads learn", "Previous-token heads and positional heads",
"Induction heads" and "Attention patterns as pictures".
""",
)
