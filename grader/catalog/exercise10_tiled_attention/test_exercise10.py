"""Exercise 10 — Attention without the L×L matrix: `attention_cost`, `crossover_length`,
`online_softmax(x, block_size)` and `tiled_attention(q, k, v, block_size, causal=False)`.

Block sizes are chosen so that the usual mistakes of a block loop show: one that divides the
length, one that leaves a shorter last block, blocks of one entry (the running max grows at almost
every step, so every missing rescale shows), and one block larger than the whole sequence (a loop
that needs a full block runs zero times), down to one query and one key (L_q = L_k = 1, where a
bare .squeeze() takes the query axis too). The memory rule, that no tensor grows like L², is
graded twice (test_tiled_attention_never_holds_the_whole_matrix): by the allocation probe in the
student's process, whose sizes the message shows, and by the memory a process of the student's
gains during one call at a length whose (L, L) scores are far larger, read by the grader from
outside that process."""

import math
import random

import pytest
import torch

import lumen_ref as ref
from grader.grading.compare import (Mismatch, attention_magnitude, check_tensor, describe, dtype_text, softmax_magnitude,
                                    summarise)
from grader.catalog.exercise5_softmax.misconceptions import NAN_GRADIENT
from grader.catalog.exercise10_tiled_attention.misconceptions import (COST_MULTIPLY_ADDS, COST_NOT_INT, COST_ONE_PRODUCT,
                                                                    COST_TERM_HALVED, CROSSOVER_ONE_TERM,
                                                                    KEYS_NOT_BLOCKED, ONLINE_NOT_BLOCKED, WHOLE_MATRIX)
from grader.grading.testkit import (UNFORESEEN, as64, cases, check_call, check_device_kept, check_grads,
                                    check_inputs_kept, check_result, dims, failing_call, measure_call, randn,
                                    watched_calls)

DTYPES = [torch.float32, torch.float64]

# attention_cost: (L, d_model); online_softmax: x (B..., L_q rows, L_k entries) read `block` at a time;
# tiled_attention: q (B..., L_q, d_k), k (B..., L_k, d_k), v (B..., L_k, d_v), L for L_q = L_k.
# tests/catalog/test_sizes.py holds every case to the rule; each block size is also unlike every other size.
SIZES = {
    "cost[gpt2-small]": dict(L=1024, d_model=768),
    "cost[short]": dict(L=10, d_model=64),
    "cost[long-context]": dict(L=131072, d_model=4096),
    "softmax[divides]": dict(B=(2, 5), L_q=3, L_k=12, block=4),  # x (..., n) of any rank: 4-d here, 2-d, 3-d, 1-d below
    "softmax[partial]": dict(L_q=6, L_k=11, block=4),
    "softmax[block-1]": dict(B=2, L_q=3, L_k=7, block=1),
    "softmax[one-block]": dict(L_q=(), L_k=6, block=8, edge="one row, x of shape (n,): no dims before it"),
    "softmax_huge": dict(B=2, L_q=3, L_k=9, block=4),
    "softmax_masked": dict(B=2, L_q=5, L_k=10, block=3),
    "softmax_blocks": dict(B=2, L_q=3, L_k=12, blocks=(4, 16)),  # 3 blocks of four entries, then one block
    "attention[divides]": dict(B=(2, 3), L=12, d_k=5, d_v=7, block=4),
    "attention[partial]": dict(B=(2, 3), L=11, d_k=5, d_v=7, block=4),
    "attention[block-1]": dict(B=(2, 3), L=6, d_k=5, d_v=7, block=1),
    "attention[one-block]": dict(B=(2, 3), L=6, d_k=5, d_v=7, block=9),
    "attention[one-token]": dict(B=(2, 3), L=1, d_k=5, d_v=7, block=4,
                                 edge="L_q = L_k = 1: one query, one key, a block longer than both"),
    "attention_float64": dict(B=2, L=13, d_k=6, d_v=3, block=5),
    "lengths[decode]": dict(B=(2, 3), L_q=4, L_k=10, d_k=5, d_v=7, block=6),
    "lengths[more-queries]": dict(B=(2, 3), L_q=9, L_k=6, d_k=5, d_v=4, block=4),
    "lengths[not-causal]": dict(B=(2, 3), L_q=4, L_k=10, d_k=5, d_v=7, block=3),
    "attention_huge": dict(B=2, L=9, d_k=5, d_v=3, block=4),
    "attention_negative": dict(B=2, L=10, d_k=4, d_v=3, block=6),
    "attention_no_batch": dict(L_q=7, L_k=10, d_k=5, d_v=3, block=4),
    "attention_inputs": dict(B=2, L=8, d_k=5, d_v=3, block=6),
    "attention_half": dict(B=(2, 3), L=10, d_k=8, d_v=6, block=4),
    "gradients": dict(B=(2, 3), L_q=11, L_k=7, d_k=5, d_v=6, block=4),
    "memory": dict(B=1, n_heads=4, L=1024, d_k=32, block=64, shorter=(256, 512)),  # L: the longest measured
    "blocks": dict(B=1, n_heads=2, L=512, d_k=8, blocks=(32, 128)),  # 16 blocks of keys, then 4
    "blocks_cross": dict(B=3, n_heads=2, L_q=40, L_k=512, d_k=8, block=32),  # no other axis has L_k's 512 entries
    # one call whose (L, L) float32 scores (256 MiB; 128 MiB in half precision) are far more than the memory
    # its process may gain (`memory`), at a block size whose (L, block) scores need a few MiB
    "measured": dict(B=1, L=8192, d_k=5, d_v=7, block=64, memory=112 << 20, rows=64),
}
TILED = "tiled_attention"
CARRIED = 1  # entries a step reads beside its block: the running max taken with the block's (`cat([m, s]).amax`)
EMPTY_ROW_HINT = ("a block with no finite score must add nothing, and a row with none give zeros, not NaN: "
                  "e^(-inf - (-inf)), 0 * inf and 0/0 are NaN, so shift by 0 while the running max is -inf and "
                  "divide by 1 where the running sum is 0")
NO_KEY_HINT = ("with more queries than keys, the first L_q - L_k queries (positions before the first key) see no key "
               "at all: their output must be zeros, not NaN (shift by 0 while the running max is -inf, divide by 1 "
               "where the sum is 0)")
OVERFLOW_HINT = ("e^x overflowed: no exponent may be above 0: shift each term by the running max, e^(s - m), never "
                 "e^s, and rescale the running values by e^(m_old - m_new), never by its inverse")


# -- the cost ------------------------------------------------------------------------------------

COST_KEYS = ("core_attention", "projections", "feed_forward")
COST_TERMS = {"core_attention": "4·L²·d (Q Kᵀ and A V, L·L·d multiply-adds each, 2 FLOPs per multiply-add)",
              "projections": "8·L·d² (W_Q, W_K, W_V and W_O, L·d·d multiply-adds each)",
              "feed_forward": "16·L·d² (d -> 4d -> d: two products of L·d·4d multiply-adds)"}


def _number(got, what):
    """got as a number, or a Mismatch saying it is not one."""
    if isinstance(got, bool) or not isinstance(got, (int, float)):
        raise Mismatch(f"{what} is {describe(got)}, expected an int", cause=COST_NOT_INT)
    return got


def _whole(got, what, unit):
    """A right value must also be an int: FLOPs and lengths are whole numbers."""
    if type(got) is not int:
        raise Mismatch(f"{what} is the {type(got).__name__} {got!r}, expected an int: {unit} are whole, so "
                       "multiply and divide ints with // (no /, math.pow or tensors)", cause=COST_NOT_INT)


def _factor(got, expected):
    """' (1/2 of it)' or ' (3× it)' when got is a simple fraction or multiple of expected, else ''."""
    ratio = got / expected if expected else 0
    for n in (2, 3, 4, 6, 8):
        if abs(ratio - n) < 1e-9:
            return f" ({n}× it)"
        if abs(ratio - 1 / n) < 1e-9:
            return f" (1/{n} of it)"
    return ""


@pytest.mark.parametrize("case", cases(SIZES, "cost"))
def test_attention_cost(student, case):
    """The case's sizes, then sizes drawn anew at each grading (UNFORESEEN): a count, not a table of the cases."""
    _check_cost(student, *dims(SIZES[f"cost[{case}]"], "L", "d_model"))
    _check_cost(student, UNFORESEEN.randrange(2, 1 << 17), UNFORESEEN.randrange(8, 1 << 13, 8))


def _check_cost(student, L, d_model):
    what = f"attention_cost({L}, {d_model})"
    got = student.attention_cost(L, d_model)
    expected = ref.attention_cost(L, d_model)
    with failing_call({"target": "attention_cost", "args": (L, d_model), "kwargs": {}, "got": got}):
        if not isinstance(got, dict):
            raise Mismatch(f"{what} returned {describe(got)}, expected a dict with the keys "
                           f"{', '.join(map(repr, COST_KEYS))}")
        if set(got) != set(COST_KEYS):
            raise Mismatch(f"{what} has the keys {sorted(map(str, got))}, expected exactly "
                           f"{', '.join(map(repr, COST_KEYS))}")
        values = {key: _number(got[key], f"{what}[{key!r}]") for key in COST_KEYS}
        halves = [key for key in COST_KEYS if values[key] * 2 == expected[key]]
        for key, value in values.items():
            if key in halves and len(halves) == len(COST_KEYS):
                raise Mismatch(f"{what}[{key!r}] is {summarise(value)}, half of {expected[key]:,}: you counted "
                               f"multiply-adds, and each is 2 FLOPs (a multiplication and an addition); "
                               f"{COST_TERMS[key]}", cause=COST_MULTIPLY_ADDS)
            if key in halves and key != "core_attention":  # the others right (round 85's m73: one of two products)
                raise Mismatch(f"{what}[{key!r}] is {summarise(value)}, half of {expected[key]:,}: a product left "
                               f"out, or its multiply-adds counted as one FLOP each (each is 2); {COST_TERMS[key]}",
                               cause=COST_TERM_HALVED)
            if key in halves:
                raise Mismatch(f"{what}[{key!r}] is {summarise(value)}, half of {expected[key]:,}: you counted one "
                               f"of the two products, S = Q Kᵀ and A V; {COST_TERMS[key]}", cause=COST_ONE_PRODUCT)
            if value != expected[key]:
                raise Mismatch(f"{what}[{key!r}] is {summarise(value)}, expected {expected[key]:,}"
                               f"{_factor(value, expected[key])}: {COST_TERMS[key]}")
        for key in COST_KEYS:
            _whole(got[key], f"{what}[{key!r}]", "FLOPs")


@pytest.mark.points(2)
def test_crossover_length(student):
    # GPT-2 small, a d = 4096 model, a toy, and a width drawn anew at each grading (UNFORESEEN)
    for d_model in (768, 4096, 10, UNFORESEEN.randrange(2, 1 << 14)):
        what = f"crossover_length({d_model})"
        got = student.crossover_length(d_model)
        expected = ref.crossover_length(d_model)
        with failing_call({"target": "crossover_length", "args": (d_model,), "kwargs": {}, "got": got}):
            one_term = {2 * d_model: "the projections' 8·L·d² alone (L = 2·d), without the feed-forward's 16·L·d²",
                        4 * d_model: "the feed-forward's 16·L·d² alone (L = 4·d), without the projections' 8·L·d²"}
            if _number(got, what) in one_term:
                raise Mismatch(f"{what} is {summarise(got)}, expected {expected:,}{_factor(got, expected)}: yours "
                               f"weighs the core's 4·L²·d against {one_term[got]}; the core equals both together, "
                               "8·L·d² + 16·L·d² = 24·L·d², at L = 6·d", cause=CROSSOVER_ONE_TERM)
            if got != expected:
                raise Mismatch(f"{what} is {summarise(got)}, expected {expected:,}{_factor(got, expected)}: the "
                               "core's 4·L²·d equals the projections' and feed-forward's 8·L·d² + 16·L·d² = 24·L·d² "
                               "at L = 6·d")
            _whole(got, what, "lengths")


# -- online softmax -------------------------------------------------------------------------------


def _check_softmax(student, x, block, *, what=None, nan_hint=""):
    """The student's online_softmax(x, block) against the whole-row softmax, in x's dtype."""
    return check_call(student, "online_softmax", x, block, ref=ref.online_softmax, like=x, nan_hint=nan_hint,
                      what=what or f"online_softmax(x of shape {tuple(x.shape)}, block_size={block})",
                      picture="weights", magnitude=lambda weights, x, block: softmax_magnitude(x, weights))


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
@pytest.mark.parametrize("case", cases(SIZES, "softmax"))
def test_online_softmax(student, rng, device, case, dtype):
    size = SIZES[f"softmax[{case}]"]
    x = randn(rng, *dims(size, "B", "L_q", "L_k"), dtype=dtype, device=device, scale=3.0)
    _check_softmax(student, x, size["block"])


@pytest.mark.points(2)
def test_online_softmax_huge_scores(student, rng, device):
    size = SIZES["softmax_huge"]
    x = randn(rng, *dims(size, "B", "L_q", "L_k"), device=device, scale=3.0)
    x[0] += 1e4  # e^1e4 overflows: only e^(x - max) is safe
    x[1, 0] -= 1e5  # every entry far below 0: a running max that starts at 0, or at -1e4 or -3e4 (round 84), loses all
    x[1, 1] = x[1, 1].sort().values * 100  # the max grows in every block, by far
    x[1, 2] = x[1, 2].sort(descending=True).values * 100  # the max comes first, every later block far below it
    _check_softmax(student, x, size["block"], what=f"online_softmax(x, block_size={size['block']}) with scores "
                   "like ±1e4", nan_hint=OVERFLOW_HINT)


@pytest.mark.points(2)
def test_online_softmax_masked_entries(student, rng, device):
    size = SIZES["softmax_masked"]
    block = size["block"]
    x = randn(rng, *dims(size, "B", "L_q", "L_k"), device=device, scale=2.0)
    x[0, 1, :block + 1] = float("-inf")  # the first block all -inf: the running max is -inf for a while
    x[0, 2] = float("-inf")  # a row that may see nothing: zeros
    x[1, 3, :-1] = float("-inf")  # one entry left, in the last (partial) block
    x[1, 4] -= 1000  # a running max far below 0, then a block all -inf: its max, -inf, must not make e^(0 - m),
    x[1, 4, block:2 * block] = float("-inf")  # which overflows, times a sum of 0 (round 14's corpus: NaN)
    _check_softmax(student, x, block, what=f"online_softmax(x, block_size={block}) with -inf entries",
                   nan_hint=EMPTY_ROW_HINT)


# -- tiled attention --------------------------------------------------------------------------------


@pytest.mark.needs_values("test_online_softmax")
@pytest.mark.points(1)
def test_online_softmax_reads_blocks(student, rng):
    """The docstring's "read block_size entries at a time": with blocks of four entries no reduction (a
    max, a sum, a product) reads more than four values of a row at once (round 22's a3 read rows whole and
    ran a dummy operation per block; every block at once, then the blocks' maxima, reads no more), and
    the call runs more torch operations on x's values than with one block for the whole row, as a loop
    over the blocks does, or makes tensors of other shapes, as every block at once does ((..., blocks,
    block_size)); counted by the grader's probe, on the CPU. A whole-row softmax does the same work
    whatever the block size (round 20's a3)."""
    size = SIZES["softmax_blocks"]
    x = randn(rng, *dims(size, "B", "L_q", "L_k"), scale=3.0)
    (small, large) = size["blocks"]
    whole, blocks = (measure_call(student, "online_softmax", x, block, what="online_softmax's operations")
                     for block in (large, small))
    few, more = whole["ops"], blocks["ops"]
    call = f"online_softmax(x of shape {tuple(x.shape)}, block_size)"
    advice = (f"Read x block_size entries at a time ({size['L_k'] // small} blocks, then one), keeping each row's "
              "running max and sum, as the docstring says")
    if blocks["widest"] > small + CARRIED:
        raise Mismatch(f"{call} with block_size={small} reduced {blocks['widest']} entries of a row at once (a max, a "
                       f"sum or a product along the last axis): it reads each row whole, where the running max and "
                       f"sum take block_size={small} entries at a time. {advice}", cause=ONLINE_NOT_BLOCKED)
    if more <= few and blocks["shapes"] == whole["shapes"]:
        raise Mismatch(f"{call} ran {more} torch operations on x's values with block_size={small} and {few} with "
                       f"block_size={large}: its work does not follow block_size, so it reads each row whole. {advice}",
                       cause=ONLINE_NOT_BLOCKED)


def qkv(rng, name, **options):
    """q, k and v of the SIZES case `name` (options: randn's); L stands for L_q = L_k."""
    size = dict(SIZES[name])
    size.setdefault("L_q", size.get("L")), size.setdefault("L_k", size.get("L"))
    return tuple(randn(rng, *dims(size, "B", length, width), **options)
                 for length, width in (("L_q", "d_k"), ("L_k", "d_k"), ("L_k", "d_v")))


def _weights(q, k, v, causal):
    """The (L_q, L_k) weights tiled attention never forms, in float64: the tolerance's conditioning."""
    L_q, L_k = q.size(-2), k.size(-2)
    mask = torch.ones(L_q, L_k, dtype=torch.bool).tril(diagonal=L_k - L_q) if causal else None
    return ref.scaled_dot_product_attention(q, k, v, mask)[1]


def _check_tiled(student, q, k, v, block, causal, *, what=None, nan_hint=""):
    """The student's tiled_attention against whole-matrix attention in float64."""
    what = what or (f"tiled_attention(q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}, v, "
                    f"block_size={block}{', causal=True' if causal else ''})")
    return check_call(student, TILED, q, k, v, block, kwargs={"causal": causal}, ref=ref.tiled_attention, what=what,
                      like=q, nan_hint=nan_hint,
                      magnitude=lambda out, q, k, v, block, causal: attention_magnitude(
                          q, k, v, _weights(q, k, v, causal))[0])


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("case", cases(SIZES, "attention"))
def test_tiled_attention(student, rng, device, case, causal):
    size = SIZES[f"attention[{case}]"]
    q, k, v = qkv(rng, f"attention[{case}]", device=device)
    _check_tiled(student, q, k, v, size["block"], causal)


@pytest.mark.points(2)
def test_tiled_attention_float64(student, rng, device):
    size = SIZES["attention_float64"]
    q, k, v = qkv(rng, "attention_float64", dtype=torch.float64, device=device, scale=2.0)
    _check_tiled(student, q, k, v, size["block"], True)


@pytest.mark.parametrize("case", cases(SIZES, "lengths"))
def test_tiled_attention_queries_and_keys(student, rng, device, case):
    """L_q != L_k: the queries are the last L_q positions (as in the KV cache)."""
    size = SIZES[f"lengths[{case}]"]
    q, k, v = qkv(rng, f"lengths[{case}]", device=device)
    _check_tiled(student, q, k, v, size["block"], case != "not-causal",
                 nan_hint=NO_KEY_HINT if case == "more-queries" else "")


@pytest.mark.points(2)
def test_tiled_attention_huge_scores(student, rng, device):
    size = SIZES["attention_huge"]
    q, k, _ = qkv(rng, "attention_huge", dtype=torch.float64, device=device, scale=60.0)  # scores 1e3..1e4
    _, _, v = qkv(rng, "attention_huge", dtype=torch.float64, device=device)
    _check_tiled(student, q, k, v, size["block"], True, nan_hint=OVERFLOW_HINT,
                 what=f"tiled_attention(q, k, v, block_size={size['block']}, causal=True) with scores of order 1e4")


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_tiled_attention_negative_scores(student, rng, device, dtype):
    size = SIZES["attention_negative"]
    q, k, v = qkv(rng, "attention_negative", dtype=dtype, device=device)
    q, k = -30 * (q.abs() + 1), 30 * (k.abs() + 1)  # every score below -1000: e^(s - 0) underflows
    # and one more dimension adds -90000 to every score: the same for every key, so the weights stay those of the
    # scores above, while every score, once scaled, is below -40000 (a running max floored at -1e4: round 84's a04)
    q = torch.cat([q, q.new_full((*q.shape[:-1], 1), -300.0)], dim=-1)
    k = torch.cat([k, k.new_full((*k.shape[:-1], 1), 300.0)], dim=-1)
    _check_tiled(student, q, k, v, size["block"], False, nan_hint=EMPTY_ROW_HINT,
                 what=f"tiled_attention(q, k, v, block_size={size['block']}) with every score below -40000 "
                      f"({dtype_text(dtype)})")


def test_tiled_attention_without_batch_dims(student, rng, device):
    size = SIZES["attention_no_batch"]
    q, k, v = qkv(rng, "attention_no_batch", device=device)
    _check_tiled(student, q, k, v, size["block"], True)


@pytest.mark.needs_values("test_online_softmax", "test_tiled_attention")
def test_inputs_not_modified(student, rng, device):
    size = SIZES["attention_inputs"]
    x = randn(rng, *dims(size, "B", "L", "L"), device=device)
    x[1, 3, :4] = float("-inf")
    check_inputs_kept(student, "online_softmax", x, size["block"], names=["x"], new=True)
    q, k, v = qkv(rng, "attention_inputs", device=device)
    check_inputs_kept(student, TILED, q, k, v, size["block"], causal=True, names=["q", "k", "v"])


@pytest.mark.points(2)
def test_half_precision(student, rng, device):
    """In float16 and bfloat16 too, a row with nothing to attend to gives zeros: an eps that is 1e-12 in
    float32 is 0 there (round 14's corpus: l.clamp_min(1e-12) made 0/0)."""
    size, fewer = SIZES["attention_half"], SIZES["lengths[more-queries]"]
    for dtype in (torch.float16, torch.bfloat16):
        x = randn(rng, *dims(size, "B", "L", "L"), dtype=dtype, device=device, scale=2.0)
        x[0, 1] = float("-inf")  # a row that sees nothing: zeros
        _check_softmax(student, x, size["block"], what=f"online_softmax(x, block_size={size['block']}) in "
                                                       f"{dtype_text(dtype)}", nan_hint=EMPTY_ROW_HINT)
        q, k, v = qkv(rng, "attention_half", dtype=dtype, device=device)
        _check_tiled(student, q, k, v, size["block"], True,
                     what=f"tiled_attention(q, k, v, block_size={size['block']}, causal=True) in {dtype_text(dtype)}")
        q, k, v = qkv(rng, "lengths[more-queries]", dtype=dtype, device=device)  # its first queries see no key
        _check_tiled(student, q, k, v, fewer["block"], True, nan_hint=NO_KEY_HINT,
                     what=f"tiled_attention(q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}, v, "
                          f"block_size={fewer['block']}, causal=True) in {dtype_text(dtype)}")


# -- the rule: never the (L, L) matrix -------------------------------------------------------------

QUADRATIC = 1.5  # growth exponent of the largest tensor with L: L·block_size is 1, the (L, L) matrix 2


def _mib(n):
    return f"{n / 2 ** 20:.2f} MiB"


def _whole_matrix_call(q, k, v, block, causal):
    """A call that held the whole matrix, for the smallest example: the same call smaller, where a
    tensor of theirs is (L_q, L_k) though block_size < L_k (grader.diagnosis.examples)."""
    return {"target": TILED, "args": (q, k, v, block), "kwargs": {"causal": causal}, "got": None,
            "check": "whole-matrix", "rows": "L_q", "columns": "L_k", "block": "block"}


def _check_value_sizes(student, rng):
    """The rule at the sizes of the value tests too: code that holds the whole (L_q, L_k) matrix while
    L_k is short and tiles only at the lengths above would score every value with it (round 20's a3).
    No tensor it makes may hold an axis of L_q and another of L_k where block_size < L_k: any of them, not
    only its largest (one head's whole matrix at a time is smaller than the output there: round 22's a11),
    in any layout ((..., L_q, 1, L_k): round 26's a15), causal or not (round 26's a3)."""
    for name, causal in (("attention[divides]", True), ("attention[divides]", False), ("lengths[decode]", False)):
        q, k, v = qkv(rng, name)
        block = SIZES[name]["block"]
        measured = measure_call(student, TILED, q, k, v, block, causal=causal, what="tiled_attention's memory")
        L_q, L_k = q.size(-2), k.size(-2)
        whole = [shape for shape in measured["shapes"] if _holds_both(tuple(shape), L_q, L_k)]
        if whole:
            record = _whole_matrix_call(q, k, v, block, causal=causal)
            raise Mismatch(f"tiled_attention(q of shape {tuple(q.shape)}, k of shape {tuple(k.shape)}, v, "
                           f"block_size={block}, causal={causal}), a call of the value tests' sizes, made a tensor "
                           f"of shape {tuple(whole[0])}: the whole (L_q, L_k) matrix, though "
                           f"block_size={block} < L_k = {L_k}. The rule holds at every length, short ones too: read "
                           "K and V block_size keys at a time and keep only a block of scores, (L_q, block_size)",
                           cause=WHOLE_MATRIX, call=record)


def _holds_both(shape, L_q, L_k):
    """Does a tensor of `shape` hold an axis of L_q entries and another of L_k? With one query, only a
    shape ending in (1, L_k) does (an axis of 1 is in many a tensor)."""
    if L_q == 1:
        return shape[-2:] == (L_q, L_k)
    return any(i != j for i, n in enumerate(shape) if n == L_q for j, m in enumerate(shape) if m == L_k)


def _check_blocks_read(student, rng):
    """The docstring's "reading K and V block_size keys at a time": with 4 times the block size, a call
    runs fewer matrix products (counted by the grader's probe), as it reads fewer blocks of keys. A chunk
    of queries against all the keys at once holds no (L, L) matrix either, but ignores block_size (round
    19's a1). Code that runs no matrix product (sums of products) is held to the same rule by the torch
    operations it runs; so is code that computes outside torch (NumPy), whose operations do not follow
    block_size there (round 19's a2: a whole matrix in memory torch never allocated). Only work on q, k
    and v's values counts, and no reduction or product of it may read more than a block of keys or a
    query at once: a chunk of queries against all the keys with a small product per block beside it
    reads every key in its `p @ v` (round 22's a1). Nor may any tensor computed from q's and k's values
    hold all the keys' entries: with fewer queries than keys, an axis of L_k entries is the keys' (a chunk
    of queries against all the keys, its max and sum made of elementwise operations, reads no more than a
    block in any reduction or product: round 35's a03). Nor may the call, not causal, hold all its scores at
    once, in blocks side by side (round 46's a05: only the causal calls' growth is measured)."""
    size = SIZES["blocks"]
    B, H, L, d_k = size["B"], size["n_heads"], size["L"], size["d_k"]
    q, k, v = (randn(rng, B, H, L, d_k) for _ in "qkv")
    counted = [measure_call(student, TILED, q, k, v, block, what="tiled_attention's matrix products")
               for block in size["blocks"]]
    (small, large), (few, more) = size["blocks"], counted
    call = f"tiled_attention(q, k, v of shape ({B}, {H}, {L}, {d_k}), block_size)"
    advice = (f"Read K and V block_size keys at a time ({L // small} blocks, then {L // large}), each query's running "
              "max, sum and output carried from block to block, as the docstring says")
    if few["products"] and more["products"] >= few["products"]:
        raise Mismatch(f"{call} ran {few['products']} matrix products with block_size={small} and {more['products']} "
                       f"with block_size={large}: the keys it reads at once do not follow block_size. {advice}",
                       cause=KEYS_NOT_BLOCKED)
    if not few["products"] and more["ops"] >= few["ops"]:
        raise Mismatch(f"{call} ran no matrix product, and {few['ops']} torch operations with block_size={small} and "
                       f"{more['ops']} with block_size={large}: its work does not follow block_size. Either the keys "
                       "are not read a block at a time, or the scores are computed outside torch (NumPy, Python "
                       "numbers), where the grader's probe, autograd and a GPU cannot follow them. " + advice,
                       cause=KEYS_NOT_BLOCKED)
    whole = B * H * L * L * q.element_size()  # every score of the call, however laid out
    if few["peak"] >= whole:  # the honest corpora hold at most about two thirds of it (float64 accumulators)
        raise Mismatch(f"{call} with block_size={small}, not causal, held {_mib(few['peak'])} at once in the tensors it "
                       f"made, and all of its scores, (L, L) for each head, are {_mib(whole)}: the whole matrix, "
                       f"kept in pieces (a list of blocks) though each is read a block at a time. Keep one block of "
                       f"scores at a time: fold each into the running values, then let it go. {advice}",
                       cause=WHOLE_MATRIX)
    if more["widest"] < min(large, L):  # keys read a fixed number at a time, a small product per block beside them
        raise Mismatch(f"{call} with block_size={large} read at most {more['widest']} values at once in any reduction "
                       f"or product along the last axis (a max, a sum, p @ v), where a block of keys has {large}: it "
                       f"reads fewer keys at a time than block_size says, whatever else it runs per block (round "
                       f"56's a04). {advice}", cause=KEYS_NOT_BLOCKED)
    if few["widest"] > max(small + CARRIED, d_k):  # a product over all the keys, beside one per block that reads little
        raise Mismatch(f"{call} with block_size={small} read {few['widest']} values at once in one reduction or "
                       f"product along the last axis (a max, a sum, p @ v), where a block of keys has {small} and a "
                       f"query {d_k}: some of its work reads all the keys at once, whatever block_size says. {advice}",
                       cause=KEYS_NOT_BLOCKED)
    cross = SIZES["blocks_cross"]
    q = randn(rng, *dims(cross, "B", "n_heads", "L_q", "d_k"))
    k, v = (randn(rng, *dims(cross, "B", "n_heads", "L_k", "d_k")) for _ in "kv")
    measured = measure_call(student, TILED, q, k, v, cross["block"], what="tiled_attention's scores")
    # a block of scores, (L_q, block_size) per head, and each query's running max beside it
    block_of_scores = cross["B"] * cross["n_heads"] * cross["L_q"] * (cross["block"] + CARRIED)
    most = max([entries for origins, entries in measured["read_most"] if origins & QK == QK], default=0)
    if most > block_of_scores:
        raise Mismatch(f"tiled_attention(q of shape {tuple(q.shape)}, k and v of shape {tuple(k.shape)}, "
                       f"block_size={cross['block']}) read {most:,} entries of q's and k's data in one operation, "
                       f"where a block of scores, (L_q, block_size) for each head, is {block_of_scores:,}: all the "
                       f"keys at once, laid out however (in blocks side by side too), whatever block_size says. "
                       f"{advice}", cause=KEYS_NOT_BLOCKED)
    if any(origins & QK == QK and cross["L_k"] in axes for origins, axes in measured["combined"]):
        raise Mismatch(f"tiled_attention(q of shape {tuple(q.shape)}, k and v of shape {tuple(k.shape)}, "
                       f"block_size={cross['block']}) made a tensor from q's and k's values with an axis of "
                       f"{cross['L_k']} entries: all the keys at once, whatever block_size says (a chunk of queries "
                       f"against every key holds no (L, L) matrix, but does not read the keys a block at a time). "
                       f"{advice}", cause=KEYS_NOT_BLOCKED)


QK = 0b11  # the probe's bits of q's and k's data (the first two arguments; grader.perf.probe.measure): data the
# probe did not see made (handed out of torch and back: round 37's a02) has every bit


def _check_measured_call(student, rng, advice):
    """One call at the "measured" length in a process of its own whose resident memory the grader reads
    from outside (Student.run_measured): it must grow by less than `memory`, where the (L, L) scores
    need more than twice that and a block of them a few MiB. Its answer is checked at rows drawn after it
    returned, from the operating system's randomness (not the seed). A wrong answer there withholds the
    points, as from a property test whose values are wrong ("not scored yet"): a memory rule holds only
    of a right answer (rounds 15 and 16 were wrong on purpose there, right at the value tests' sizes)."""
    size = SIZES["measured"]
    L, block, memory = size["L"], size["block"], size["memory"]
    q, k, v = qkv(rng, "measured")
    call = f"tiled_attention(q, k, v of length L = {L}, block_size={block})"
    got, grown = student.run_measured(TILED, q, k, v, block)
    if grown is not None and grown >= memory:
        raise Mismatch(f"{call} made its process's memory grow by {_mib(grown)} (read by the grader from outside "
                       f"that process: the most it held in RAM, from before your file was imported to the end of "
                       f"the call), and one (L, L) matrix of float32 scores is {_mib(L * L * 4)} there: your code "
                       f"holds the whole matrix (or far more than a block of it) at once, where a block of scores "
                       f"takes {_mib(L * block * 4)}. {advice}", cause=WHOLE_MATRIX)
    rows = sorted(random.SystemRandom().sample(range(L), size["rows"]))
    try:
        check_tensor(got, what=call, shape=(*q.shape[:-1], v.size(-1)), dtype=q.dtype, device="cpu")
        q64, k64, v64 = as64((q[..., rows, :], k, v))
        expected, weights = ref.scaled_dot_product_attention(q64, k64, v64)
        check_result(got[..., rows, :], expected, what=f"{call} in the process whose memory the grader reads",
                     like=q, magnitude=attention_magnitude(q64, k64, v64, weights)[0])
    except Mismatch as wrong:  # the rule holds only of a right answer: not scored, as a property test
        raise Mismatch(f"not scored yet: this test checks that your code never holds the whole matrix while it "
                       f"computes the right answer, and {wrong.message}", needs_values=[TILED]) from None


def _growth(first, last, short, long):
    """The power of L a size grows by from L = short to L = long."""
    return math.log(max(last, 1) / max(first, 1)) / math.log(long / short)


# -- gradients -----------------------------------------------------------------------------------


# the ways a NaN gradient of a query that sees no key arises, which the diagnosis replaces by the
# student's own line where it finds it
NAN_GRADIENT_WAYS = ("but a NaN made and then dropped (torch.where(l == 0, 0, o / l), nan_to_num, a sum clamped to a "
                     "tiny number) still flows backwards.")


@pytest.mark.points(2)
def test_tiled_attention_gradients(student, rng, device):
    """Through the loop, autograd must give whole-matrix attention's gradients: the queries that see no
    key (causal, L_q > L_k) get zeros, and a NaN made there and dropped would still flow backwards."""
    size = SIZES["gradients"]
    q, k, v = qkv(rng, "gradients", dtype=torch.float64, device=device)
    block, unseen = size["block"], size["L_q"] - size["L_k"]
    what = f"tiled_attention(q, k, v, block_size={block}, causal=True) with {size['L_q']} queries and {size['L_k']} keys"
    _check_tiled(student, q, k, v, block, True, what=what, nan_hint=NO_KEY_HINT)  # wrong values explain wrong gradients
    # large upstream gradients: a sum clamped to the smallest float gives 0 * (g / tiny) = 0 * inf = NaN
    upstream = [randn(rng, *q.shape[:-1], size["d_v"], dtype=torch.float64, device=device, scale=10.0)]
    check_grads(student, TILED, ref.tiled_attention, [q, k, v, block, True], [0, 1, 2], rng, what=what,
                names=["q", "k", "v"], upstream=upstream, cause=NAN_GRADIENT, general=NAN_GRADIENT_WAYS,
                nan_hint=f"the first {unseen} queries see no key, and their gradients must be finite too (zeros), "
                         f"{NAN_GRADIENT_WAYS} Shift by 0 while the running max is -inf and divide by 1 where the "
                         "sum is 0")


# -- devices: the running max, sum and positions are made on the inputs' device -------------------


@pytest.mark.needs_values(**{"online_softmax": "test_online_softmax", TILED: "test_tiled_attention"})
@pytest.mark.parametrize("call", ["online_softmax", TILED])
def test_stays_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with the inputs on a stand-in device."""
    if call == TILED:
        size = SIZES["lengths[decode]"]
        q, k, v = (randn(rng, *dims(size, "B", length, width)) for length, width in
                   (("L_q", "d_k"), ("L_k", "d_k"), ("L_k", "d_v")))
        check_device_kept(student, TILED, q, k, v, size["block"], device=device, causal=True,
                          what=f"tiled_attention(q, k, v, {size['block']}, causal=True)")
    else:
        size = SIZES["softmax[partial]"]
        x = randn(rng, *dims(size, "B", "L_q", "L_k"))
        check_device_kept(student, call, x, size["block"], device=device, what=f"online_softmax(x, {size['block']})")


# -- the rule, at every call: this test comes last -----------------------------------------------------


@pytest.mark.needs_values("test_tiled_attention")
@pytest.mark.points(4)
def test_tiled_attention_never_holds_the_whole_matrix(student, rng):
    """The largest tensor one causal call allocates, at L = 256, 512 and 1024 (on the CPU, whatever
    the device: sizes are what is measured, not time). It must grow like L (one block of scores,
    (L, block_size)), and stay below one head's (L, L) scores at the longest L (so a buffer of a
    fixed size that holds them does not pass for tiled: round 14's a2). Then one call at L = 8192 must give the
    right answer while its process gains less memory (read from outside it) than one (L, L) matrix; the
    keys must be read block_size at a time (`_check_blocks_read`), and the rule holds at the value
    tests' lengths too (`_check_value_sizes`), and last, at every call the suites made (`_check_every_call`:
    this test comes last)."""
    size = SIZES["memory"]
    B, H, d_k, block = size["B"], size["n_heads"], size["d_k"], size["block"]
    found = []
    for L in (*size["shorter"], size["L"]):
        q, k, v = (randn(rng, B, H, L, d_k) for _ in "qkv")
        found.append((L, measure_call(student, TILED, q, k, v, block, causal=True, what="tiled_attention's memory")))
    (short, first), (long, last) = found[0], found[-1]
    call = f"tiled_attention(q, k, v of shape ({B}, {H}, L, {d_k}), block_size={block}, causal=True)"
    advice = (f"Read K and V one block at a time and keep only a block of scores, (L_q, block_size): "
              f"{_mib(B * H * long * block * 4)} at L = {long}")
    whole = long * long * 4  # the float32 (L, L) scores of one head
    record = _whole_matrix_call(q, k, v, block, causal=True)
    exponent = _growth(first["bytes"], last["bytes"], short, long)
    if exponent >= QUADRATIC or last["bytes"] >= whole:
        sizes = ", ".join(f"{_mib(measured['bytes'])} at L = {L}" for L, measured in found)
        held = f"of shape {tuple(last['shape'])}" if last["shape"] else "held outside torch (numpy arrays or Python objects)"
        what = "the whole matrix" if tuple(last["shape"][-2:]) in ((long, long), ()) else "more than a block of scores"
        raise Mismatch(f"{call} holds {what}: its largest tensor grows like L^{exponent:.1f} ({sizes}; the "
                       f"largest, {held}, at L = {long}), and the (L, L) scores of one head are {_mib(whole)} "
                       f"there. {advice}", cause=WHOLE_MATRIX, call=record)
    # the matrix kept as many tensors of a block each (a list of row blocks): what they hold together
    exponent = _growth(first["peak"], last["peak"], short, long)
    if exponent >= QUADRATIC:
        held = ", ".join(f"{_mib(measured['peak'])} at L = {L}" for L, measured in found)
        raise Mismatch(f"{call} holds the whole matrix in pieces: the tensors it makes hold together, at their most, "
                       f"memory that grows like L^{exponent:.1f} ({held}). Keep one block of scores at a time: fold "
                       f"each into the running values, then let it go. {advice}", cause=WHOLE_MATRIX)
    # a tensor of few bytes per entry (a bool (L, L) mask made before the loop) grows like L^2 in entries
    exponent = _growth(first["elements"], last["elements"], short, long)
    if exponent >= QUADRATIC:
        entries = ", ".join(f"{measured['elements']} at L = {L}" for L, measured in found)
        raise Mismatch(f"{call} holds an (L, L) tensor: its tensor of the most entries grows like L^{exponent:.1f} "
                       f"({entries} entries; of shape {tuple(last['element_shape'])} at L = {long}), as a whole "
                       f"(L_q, L_k) mask does, made before the loop even in bool. Make each block's part of it "
                       f"inside the loop, (L_q, block_size). {advice}", cause=WHOLE_MATRIX, call=record)
    _check_measured_call(student, rng, advice)
    _check_blocks_read(student, rng)
    _check_value_sizes(student, rng)
    _check_every_call(student)


def _check_every_call(student):
    """Every call of tiled_attention the suites made, this test's included (it is `watched`): where the keys
    are more than a block, no operation that read q's and k's data read more at once than a block of
    scores, an output or a block of keys or values takes (per head: L_q or a block, by the widest of a block,
    d_k and d_v), nor reduced or multiplied more than that many values at once along the last axis: code
    that holds the whole matrix, or reads all the keys at once, only at lengths the grader does not measure
    scored every value with it (round 40's a07, round 45's a05)."""
    for call in watched_calls(student, TILED, what="tiled_attention's memory"):
        if len(call.args) < 4 or not all(isinstance(t, torch.Tensor) and t.dim() >= 2 for t in call.args[:3]) \
                or type(call.args[3]) is not int:
            continue
        q, k, v, block = call.args[:4]
        L_q, L_k, widest = q.size(-2), k.size(-2), max(block + CARRIED, q.size(-1), v.size(-1))
        if L_k <= widest:
            continue
        if call.measured["widest"] > widest:
            raise Mismatch(f"one of the grader's other calls, tiled_attention(q of shape {tuple(q.shape)}, k of shape "
                           f"{tuple(k.shape)}, v, block_size={block}), read {call.measured['widest']} values at once in "
                           f"one reduction or product along the last axis, where a block of keys has {block} and a "
                           f"query {q.size(-1)}: all the keys at once, at a length the grader did not measure. The "
                           "rule holds at every length: read K and V block_size keys at a time", cause=KEYS_NOT_BLOCKED)
        most = max([entries for origins, entries in call.measured["read_most"] if origins & QK == QK], default=0)
        bound = math.prod(q.shape[:-2]) * max(L_q, block + CARRIED) * widest
        if most > bound:
            raise Mismatch(f"one of the grader's other calls, tiled_attention(q of shape {tuple(q.shape)}, k of shape "
                           f"{tuple(k.shape)}, v, block_size={block}), read {most:,} entries in one operation on q's "
                           f"and k's data, where a block of scores, (L_q, block_size) for each head, the output and a "
                           f"block of keys or values take at most {bound:,}: all the keys at once, at a length the "
                           "grader did not measure. The rule holds at every length: read K and V block_size keys at a "
                           "time", cause=KEYS_NOT_BLOCKED)
