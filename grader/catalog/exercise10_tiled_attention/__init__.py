"""Exercise 10 — Attention without the L×L matrix: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf, Rule, Shapes
from grader.perf.cases import Allocations, Case, CausalScores, Randn


def perf_cases(B, H, L, d_head, block, memory_shape, memory_lengths, memory_block):
    """The online softmax and tiled attention timed against the reference's (a block size that leaves a
    shorter last block), and the memory verdict: the largest tensor tiled_attention allocates, at
    several lengths."""
    q = Randn((B, H, L, d_head))
    return [Case("online_softmax", (CausalScores((B, H, L, L)), block)),
            Case("tiled_attention", (q, q, q, block, True), fused=True),
            Allocations("tiled_attention", memory_shape, memory_lengths, memory_block)]


def oracle_checks(r):
    """lumen_ref against grader.oracle, for `lumen-grade check` (r: seeded float64 inputs)."""
    import lumen_ref as ref
    from grader import oracle

    for L, d_model in ((1024, 768), (10, 64)):
        ours, theirs = ref.attention_cost(L, d_model), oracle.attention_cost(L, d_model)
        for key in sorted(set(ours) | set(theirs)):
            yield f"attention_cost({L}, {d_model})[{key!r}]", ours.get(key, -1), theirs.get(key, -2)
    yield "crossover_length(768)", ref.crossover_length(768), oracle.crossover_length(768)
    x = r.randn(2, 5, 11, scale=4.0)
    x[0, 1] = float("-inf")  # a row of nothing: zeros
    x[0, 2, :7] = float("-inf")  # the running max stays -inf over whole blocks
    x[1, 3] += 1e4  # e^1e4 overflows unless shifted
    for block in (1, 4, 16):
        yield f"online_softmax(block_size={block})", ref.online_softmax(x, block), oracle.online_softmax(x, block)
    for L_q, L_k in ((9, 9), (3, 10), (8, 5)):  # the same, a decode step, queries that see no key
        q, k, v = r.randn(2, 3, L_q, 6), r.randn(2, 3, L_k, 6), r.randn(2, 3, L_k, 4)
        for causal in (False, True):
            yield (f"tiled_attention(L_q={L_q}, L_k={L_k}, block_size=4, causal={causal})",
                   ref.tiled_attention(q, k, v, 4, causal), oracle.tiled_attention(q, k, v, 4, causal))


def builtin_checks(r):
    """lumen_ref against torch's own softmax and fused attention, for `lumen-grade check`."""
    import torch
    import torch.nn.functional as F

    import lumen_ref as ref

    x = r.randn(2, 5, 11, scale=4.0)
    yield "online_softmax", ref.online_softmax(x, 4), torch.softmax(x, dim=-1)
    q, k, v = r.randn(2, 3, 9, 6), r.randn(2, 3, 9, 6), r.randn(2, 3, 9, 4)
    yield "tiled_attention", ref.tiled_attention(q, k, v, 4), F.scaled_dot_product_attention(q, k, v)
    yield ("tiled_attention(causal=True)", ref.tiled_attention(q, k, v, 4, causal=True),
           F.scaled_dot_product_attention(q, k, v, is_causal=True))
    last = torch.ones(3, 9, dtype=torch.bool, device=r.device).tril(diagonal=6)  # 3 queries, the last positions
    yield ("tiled_attention(causal=True), 3 queries and 9 keys", ref.tiled_attention(q[..., 6:, :], k, v, 4, True),
           F.scaled_dot_product_attention(q[..., 6:, :], k, v, attn_mask=last))


EXERCISE = Exercise(
    title="Attention without the L×L matrix",
    section="The cost: attention is quadratic in sequence length",
    names=("attention_cost", "crossover_length", "online_softmax", "tiled_attention"),
    shapes={"attention_cost": Shapes(args=("L", "d_model: D")), "crossover_length": Shapes(args=("d_model: D",)),
            "online_softmax": Shapes(args=("x: ... L", "block_size")),
            "tiled_attention": Shapes(args=("q: ... L_q d_k", "k: ... L_k d_k", "v: ... L_k d_v", "block_size"))},
    rules=(
        Rule('"core_attention": 4·L²·d_model', ("test_attention_cost",)),
        Rule("4·L²·d = 24·L·d²", ("test_crossover_length",)),
        Rule("Softmax over the last axis of x", ("test_online_softmax",)),
        Rule("read block_size entries at a time", ("test_online_softmax_reads_blocks",),
             breaks=("    for start in range(0, x.size(-1), block_size):",
                     "    block_size = x.size(-1)  # one block, the whole row\n"
                     "    for start in range(0, x.size(-1), block_size):")),
        Rule("entries may be -inf (masked) or huge (±1e4)", ("test_online_softmax_huge_scores",)),
        Rule("except a row that is entirely -inf, which gives zeros", ("test_online_softmax_masked_entries",)),
        Rule("softmax(Q Kᵀ / √d_k) V, exactly", ("test_tiled_attention", "test_tiled_attention_huge_scores",
                                                  "test_tiled_attention_negative_scores")),
        Rule("q: (..., L_q, d_k) k: (..., L_k, d_k) v: (..., L_k, d_v), the same leading dims",
             ("test_tiled_attention_without_batch_dims",)),
        Rule("block_size > L_k is one block", ("test_tiled_attention",)),
        Rule("the queries are the LAST L_q positions", ("test_tiled_attention_queries_and_keys",)),
        Rule("a query that may see no key gets a zero output", ("test_tiled_attention_queries_and_keys",),
             breaks=("    return o / l.masked_fill(l == 0, 1.0)", "    return o / l")),
        Rule("one call at a length whose (L, L) scores do not fit in the memory the grader gives it must still "
             "return the right answer", ("test_tiled_attention_never_holds_the_whole_matrix",)),
        Rule("Never build a tensor of shape (..., L_q, L_k)", ("test_tiled_attention_never_holds_the_whole_matrix",),
             breaks=("    for start in range(0, L_k, block_size):\n        k_block",
                     "    q @ k.transpose(-2, -1)  # the whole matrix, thrown away\n"
                     "    for start in range(0, L_k, block_size):\n        k_block")),
        Rule("reading K and V block_size keys at a time", ("test_tiled_attention_never_holds_the_whole_matrix",),
             breaks=("    for start in range(0, L_k, block_size):", "    for start in range(0, L_k, 16):")),
        Rule("and finite for a query that sees no key", ("test_tiled_attention_gradients",)),
        Rule("Every function leaves its inputs unchanged", ("test_inputs_not_modified",)),
        Rule("Returns a new tensor of x's shape", ("test_inputs_not_modified",)),
        Rule("returns tensors in the inputs' dtype", ("test_tiled_attention_float64",)),
        Rule("and on their device", ("test_stays_on_the_inputs_device",)),
        Rule("float16 and bfloat16 too", ("test_half_precision",)),
    ),
    reference=("tiled",),
    forbidden=("softmax", "fused-attention", "multihead-attention"),
    watched=("tiled_attention", "online_softmax"),
    perf=Perf(sizes={"cpu": dict(B=2, H=8, L=128, d_head=32, block=48, memory_shape=(1, 4, 32),
                                 memory_lengths=(128, 256), memory_block=64),
                     "cuda": dict(B=4, H=8, L=512, d_head=64, block=96, memory_shape=(1, 8, 64),
                                  memory_lengths=(1024, 2048, 4096), memory_block=128)},
              cases=perf_cases),
    oracle_checks=oracle_checks,
    builtin_checks=builtin_checks,
    introduction=r"""
## What this step computes

**The bill.** Counting 2 FLOPs per multiply-add, one layer at sequence length $L$ and width
$d = d_{model}$ costs

$$\underbrace{4L^2d}_{QK^\top \text{ and } AV} \quad + \quad \underbrace{8Ld^2}_{W_Q, W_K, W_V, W_O} \quad + \quad \underbrace{16Ld^2}_{\text{feed-forward } d \to 4d \to d}$$

The first term is quadratic in $L$, the others linear: they are equal, $4L^2d = 24Ld^2$, at
$L = 6d$, about 4,600 tokens for GPT-2 small ($d = 768$) and 25,000 for $d = 4096$. The scores
$S = QK^\top$ also need $L^2$ numbers of memory per head: 4 GiB in float32 for one head at
$L = 32{,}768$.

**The cure: never hold the $(L, L)$ matrix.** Softmax needs each row's maximum and sum, but both
can be kept *running*. Read the keys and values one block at a time and keep, for every query,
the largest score so far $m$, the sum $\ell$ of $e^{s - m}$ and the output sum $o$ of
$e^{s - m} v$. A block of scores $s_b$ with values $V_b$ may raise the maximum; what was summed
under the old one is then rescaled:

$$m' = \max\big(m, \max_j s_{b,j}\big), \qquad \ell' = \ell\, e^{m - m'} + \sum_j e^{s_{b,j} - m'}, \qquad o' = o\, e^{m - m'} + e^{s_b - m'}\, V_b$$

and after the last block the output is $o / \ell$, exactly softmax$(s)\,V$ (this is the recurrence
of FlashAttention, Dao et al., 2022). The largest tensor is one block of scores,
$(L_q, \text{block\_size})$: memory grows like $L \cdot \text{block\_size}$, not $L^2$.

**A worked example.** Scores $[1, 3]$ then $[2]$, with block size 2: after the first block
$m = 3$, $\ell = e^{-2} + 1 = 1.135$. The second block does not raise the max: $\ell = 1.135 +
e^{-1} = 1.503$, and the weights are $e^{s - 3} / 1.503 = [0.090, 0.665, 0.245]$. Read with block
size 1 instead, the max grows twice and each time the sum is rescaled: $m = 1, \ell = 1$; then
$m = 3$, $\ell = 1 \cdot e^{-2} + 1$; then $\ell = 1.135 + e^{-1}$, the same $1.503$.

**Conventions.** Causal, with $L_q$ queries and $L_k$ keys: the queries are the *last* $L_q$
positions, as in the KV cache (exercise 8): query $i$ sits at position $L_k - L_q + i$ and sees
keys $0 \dots L_k - L_q + i$. With $L_q > L_k$ the first $L_q - L_k$ queries see no key: their
output is zeros, not $0/0$ = NaN. Start the running max at $-\infty$ (not 0: scores may all be
very negative) and shift by 0 while it is still $-\infty$.

## Shapes

| call | in | out |
|---|---|---|
| `attention_cost(L, d_model)` | two ints | `{"core_attention", "projections", "feed_forward"}`: ints |
| `crossover_length(d_model)` | an int | an int, $6\,d_{model}$ |
| `online_softmax(x, block_size)` | $x$ $(\dots, n)$ | $(\dots, n)$, rows summing to 1 |
| `tiled_attention(q, k, v, block_size, causal=False)` | $q$ $(\dots, L_q, d_k)$, $k$ $(\dots, L_k, d_k)$, $v$ $(\dots, L_k, d_v)$ | $(\dots, L_q, d_v)$ |
| its largest intermediate | | a block of scores, $(\dots, L_q, \text{block\_size})$ |

The grader checks the values against float64 attention, and measures the largest tensor your
`tiled_attention` allocates at several lengths: it must grow like $L$, not like $L^2$ (a test
worth 4 points).

**Read in the chapter:** "The cost: attention is quadratic in sequence length", then, in the
further reading, Dao et al. (2022), *FlashAttention*.
""",
)
