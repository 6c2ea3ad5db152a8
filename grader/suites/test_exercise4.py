"""Exercise 4 — Causal and padding masks: `causal_mask(L, device)`, `apply_mask(scores, mask)` and
`padding_mask(lengths, L)`. A mask is bool and True means "may attend"; masked scores are -inf."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, check_close, check_tensor, check_unchanged, describe, shape_text
from grader.testkit import as64, check_grads, randn

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]


# -- checking, with the chapter's explanation of the classic mistakes --------------------------------


def check_answer(student, name, *args, ref_fn, what, ideas=(), dtype=None, expect_device=None, **kwargs):
    """Call the student's `name(*args, **kwargs)` and check it against `ref_fn` in float64.

    As `testkit.check_call` (a failure carries the call, for diagnoses), plus: the result's dtype
    and device are checked first, and a wrong answer that one of `ideas` recognises gets that
    idea's sentence. An idea is fn(got, expected, args64) -> a sentence, or None.
    """
    got = student.run(name, *args, **kwargs)["value"]
    args64 = as64(args)
    expected = ref_fn(*args64, **as64(kwargs))
    try:
        if expected.dtype == torch.bool:
            check_mask_type(got, what=what, device=expect_device)
        else:
            check_tensor(got, what=what, dtype=dtype, device=expect_device)
        check_close(got, expected, what=what)
    except Mismatch as mismatch:
        mismatch.details["call"] = {"target": name, "args": args, "kwargs": kwargs, "got": got}
        explanation = recognise(ideas, got, expected, args64) if isinstance(got, torch.Tensor) else None
        if explanation:
            raise Mismatch(f"{what}: {explanation}", **mismatch.details) from None
        raise
    return got


def recognise(ideas, got, expected, args64):
    """The first idea's sentence for this wrong answer; an idea that trips over an odd answer is no match."""
    for idea in ideas:
        try:
            explanation = idea(got, expected, args64)
        except Exception:  # noqa: BLE001 - a diagnosis must never turn a wrong answer into a grader error
            explanation = None
        if explanation:
            return explanation
    return None


def check_mask_type(got, *, what, device):
    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"{what} returned {describe(got)}, expected a bool tensor")
    if got.dtype != torch.bool:
        raise Mismatch(f"{what} is {str(got.dtype).removeprefix('torch.')}, expected bool: a mask says yes "
                       "or no for each (query, key) pair, and ~mask needs bool: build it with dtype=torch.bool")
    if device is not None and got.device.type != device:
        raise Mismatch(f"{what} is on {got.device.type}, expected {device}: create it on the device you "
                       "were given (device=device, or lengths.device)")


def same(got, value):
    """got holds value's entries (CPU), -inf included: a mistake, recognised."""
    if tuple(got.shape) != tuple(value.shape) or (got.dtype == torch.bool) != (value.dtype == torch.bool):
        return False
    if value.dtype == torch.bool:
        return bool((got.cpu() == value).all())
    return torch.allclose(got.detach().to("cpu", torch.float64), value, rtol=1e-3, atol=1e-5)


# causal_mask(L)


def causal_ideas():
    def inverted(got, expected, args64):
        if same(got, ~expected):
            return ("True must mean 'may attend': yours is True above the diagonal, where the future is, "
                    "and False where token i may look; keep j <= i, torch.tril of ones")
        return None

    def no_diagonal(got, expected, args64):
        if same(got, expected.tril(diagonal=-1)):
            return ("the diagonal must be True: token i may always read itself, which also leaves every "
                    "row at least one finite score (a row of only -inf makes softmax divide 0 by 0); "
                    "torch.tril with diagonal=0")
        return None

    def upper(got, expected, args64):
        if same(got, expected.T.contiguous()):
            return ("row i is query i and column j is key j; query i may see keys 0..i, on and below the "
                    "diagonal (torch.tril), not on and above it (torch.triu)")
        return None

    def everything(got, expected, args64):
        if got.dtype == torch.bool and bool(got.all()) and not bool(expected.all()):
            return "every entry is True, so token i can read the future: keep only keys j <= i (torch.tril)"
        return None

    return (no_diagonal, inverted, upper, everything)  # at L = 1 no diagonal and inverted agree


CAUSAL_IDEAS = causal_ideas()


# apply_mask(scores, mask)


def fill_value(got, expected, args64):
    """Masked entries filled with something finite (0, -1e9, finfo.min) instead of -inf."""
    scores, mask = args64
    masked = torch.isinf(expected)
    if tuple(got.shape) != tuple(expected.shape) or not bool(masked.any()):
        return None
    got64 = got.detach().to("cpu", torch.float64)
    values = got64[masked]
    if not bool(torch.isfinite(values).all()) or not bool((values == values[0]).all()):
        return None
    if not torch.allclose(got64[~masked], expected[~masked], rtol=1e-3, atol=1e-5):
        return None
    value = float(values[0])
    if value == 0:
        return ("masked scores must be -inf, not 0: e^0 = 1, so a masked key still gets weight after the "
                "softmax; e^-inf = 0 is what gives it exactly none: fill with float('-inf')")
    if value < -1e3:
        half = f" (and {value:g} does not even fit in float16)" if value < -65504 else ""
        return (f"masked scores must be -inf, not {value:g}: exp({value:g}) is 0 in float32 too, but a row "
                "whose every key is masked would then softmax to uniform weights over keys it must not see "
                f"instead of zero weights{half}: fill with float('-inf')")
    return f"masked scores must be exactly -inf, not {value:g}: fill with float('-inf')"


def inverted_fill(got, expected, args64):
    scores, mask = args64
    if same(got, ref.apply_mask(scores, ~mask)):
        return ("you put -inf where the mask is True; True means 'may attend', so fill where it is False: "
                "scores.masked_fill(~mask, float('-inf'))")
    return None


def nothing_masked(got, expected, args64):
    scores, mask = args64
    if same(got, scores.expand(expected.shape)):
        return "nothing was masked: every score where the mask is False must become -inf"
    return None


APPLY_IDEAS = (inverted_fill, fill_value, nothing_masked)


def check_apply(student, scores, mask, *, what="apply_mask(scores, mask)"):
    return check_answer(student, "apply_mask", scores, mask, ref_fn=ref.apply_mask, what=what,
                        ideas=APPLY_IDEAS, dtype=scores.dtype, expect_device=scores.device.type)


# padding_mask(lengths, L)


def padding_ideas():
    def no_query_axis(got, expected, args64):
        B, _, L = expected.shape
        if got.shape == expected.shape:
            return None
        if tuple(got.shape) == (B, L):
            right = " (your (B, L) values are right)" if same(got, expected[:, 0, :]) else ""
            return (f"the mask must be (B, 1, L) = {shape_text(expected.shape)}, not (B, L){right}: add the "
                    "query axis, mask[:, None, :], so it broadcasts over every query of scores (B, L_q, L)")
        if tuple(got.shape) == (B, L, 1):
            return (f"(B, L, 1) masks queries, not keys: the mask must be (B, 1, L) = "
                    f"{shape_text(expected.shape)}, the same real keys for every query of sequence b")
        return None

    def inverted(got, expected, args64):
        if same(got, ~expected):
            return ("True must mean a real key (j < lengths[b]) that may be attended, False the padding; "
                    "yours is the other way round")
        return None

    def off_by_one(got, expected, args64):
        lengths, L = args64
        if same(got, ref.padding_mask(lengths + 1, L)):
            return "key j is real when j < lengths[b], not j <= lengths[b]: length 3 means keys 0, 1 and 2"
        return None

    return (no_query_axis, off_by_one, inverted)


PADDING_IDEAS = padding_ideas()


# -- causal_mask(L, device=None) ---------------------------------------------------------------------


@pytest.mark.parametrize("L", [
    pytest.param(1, marks=pytest.mark.points(1)),
    pytest.param(4, marks=pytest.mark.points(2)),
    pytest.param(7, marks=pytest.mark.points(1)),
], ids=["L=1", "L=4", "L=7"])
def test_causal_mask(student, device, L):
    check_answer(student, "causal_mask", L, device=device, ref_fn=lambda L, device: ref.causal_mask(L),
                 what=f"causal_mask({L}, device={device!r})", ideas=CAUSAL_IDEAS, expect_device=device)


@pytest.mark.points(2)
def test_no_peeking_at_the_future(student, rng):
    L = 6
    mask = student.causal_mask(L)
    scores = randn(rng, 2, L, L)
    future = torch.ones(L, L, dtype=torch.bool).triu(diagonal=1)  # key j > query i
    changed = torch.where(future, randn(rng, 2, L, L, scale=10.0), scores)
    before, after = student.apply_mask(scores, mask), student.apply_mask(changed, mask)
    check_tensor(before, what="apply_mask(scores, causal_mask(6))", shape=scores.shape)
    check_tensor(after, what="apply_mask(scores, causal_mask(6))", shape=scores.shape)
    leaks = ~((before == after) | (torch.isnan(before) & torch.isnan(after)))
    if bool(leaks.any()):
        _, i, j = (int(n) for n in leaks.nonzero()[0])
        raise Mismatch(f"after apply_mask(scores, causal_mask(6)), query {i} still sees key {j} > {i}: changing "
                       f"a future token's score changed what token {i} reads (no peeking at the future)")


# -- apply_mask(scores, mask) ------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_apply_mask_values(student, rng, device, dtype):
    scores = randn(rng, 2, 3, 5, 5, dtype=dtype, device=device)  # (B, H, L, L)
    mask = ref.causal_mask(5, device=device)  # (L, L): broadcasts over batch and heads
    check_apply(student, scores, mask, what="apply_mask(scores (2, 3, 5, 5), causal mask (5, 5))")


def test_apply_mask_padding_broadcast(student, rng):
    scores = randn(rng, 3, 4, 6)  # (B, L_q, L)
    mask = ref.padding_mask(torch.tensor([6, 2, 4]), 6)  # (B, 1, L)
    check_apply(student, scores, mask, what="apply_mask(scores (3, 4, 6), padding mask (3, 1, 6))")


def test_apply_mask_queries_ne_keys(student, rng):
    scores = randn(rng, 2, 3, 7)  # 3 new queries after 4 cached tokens: (B, L_q, L_k)
    mask = torch.ones(3, 7, dtype=torch.bool).tril(diagonal=4)
    check_apply(student, scores, mask, what="apply_mask(scores (2, 3, 7), mask (3, 7))")


@pytest.mark.hidden
def test_apply_mask_fully_masked_rows(student, rng):
    scores = randn(rng, 2, 3, 4)
    mask = ref.padding_mask(torch.tensor([0, 2]), 4)  # sequence 0 has no real key at all
    check_apply(student, scores, mask, what="apply_mask with a padding mask of length 0 (every key masked)")


@pytest.mark.hidden
def test_apply_mask_keeps_huge_and_zero_scores(student):
    scores = torch.tensor([[1e4, -1e4, 0.0], [0.0, 1e4, -1e4], [-1e4, 0.0, 1e4]])
    check_apply(student, scores, ref.causal_mask(3), what="apply_mask of scores ±1e4 and 0")


@pytest.mark.points(2)
def test_apply_mask_not_in_place(student, rng, device):
    scores = randn(rng, 2, 4, 4, device=device)
    mask = ref.causal_mask(4, device=device)
    reply = student.run("apply_mask", scores, mask, return_args=True)
    check_unchanged(scores, reply["args"][0], what="scores")
    check_unchanged(mask, reply["args"][1], what="mask")


@pytest.mark.points(2)
def test_apply_mask_gradients(student, rng, device):
    scores = randn(rng, 2, 5, 5, dtype=torch.float64, device=device)
    mask = ref.causal_mask(5, device=device)
    check_grads(student, "apply_mask", ref.apply_mask, [scores, mask], [0], rng,
                what="apply_mask(scores, mask)", names=["scores"])


def test_apply_mask_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("float16 and bfloat16 are checked on CUDA only")
    mask = ref.causal_mask(5, device=device)
    for dtype in HALF_DTYPES:
        scores = randn(rng, 2, 3, 5, 5, dtype=dtype, device=device)
        what = f"apply_mask(scores, mask) in {str(dtype).removeprefix('torch.')}"
        check_apply(student, scores, mask, what=what)


# -- padding_mask(lengths, L) ------------------------------------------------------------------------


@pytest.mark.parametrize("lengths, L", [
    pytest.param([3, 5, 1, 2], 5, marks=pytest.mark.points(2), id="mixed"),
    pytest.param([0, 5], 5, id="empty-and-full"),
    pytest.param([1, 0, 1], 1, marks=pytest.mark.hidden, id="L=1"),
])
def test_padding_mask(student, device, lengths, L):
    lengths = torch.tensor(lengths, device=device)
    check_answer(student, "padding_mask", lengths, L, ref_fn=ref.padding_mask, ideas=PADDING_IDEAS,
                 what=f"padding_mask(lengths={lengths.tolist()}, L={L})", expect_device=device)
