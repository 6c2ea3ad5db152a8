"""Exercise 4 — Causal and padding masks: `causal_mask(L, device)`, `apply_mask(scores, mask)` and
`padding_mask(lengths, L)`. A mask is bool and True means "may attend"; masked scores are -inf."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, check_tensor, dtype_text
from grader.testkit import check_call, check_grads, check_inputs_kept, randn, upstream_through_softmax

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]


def check_mask(student, name, *args, what, device, kwargs=None, ref_fn=None):
    """The student's mask `name(*args, **kwargs)` against lumen_ref's: bool, on `device`, the same entries."""
    return check_call(student, name, *args, kwargs=kwargs, ref=ref_fn or getattr(ref, name), what=what,
                      device=device, picture="mask")


def check_apply(student, scores, mask, *, what="apply_mask(scores, mask)"):
    """The student's apply_mask(scores, mask) against lumen_ref's: scores' dtype and device, -inf where masked."""
    return check_call(student, "apply_mask", scores, mask, ref=ref.apply_mask, what=what, like=scores,
                      picture="mask")


# -- causal_mask(L, device=None) ---------------------------------------------------------------------


@pytest.mark.parametrize("L", [
    pytest.param(1, marks=pytest.mark.points(1)),
    pytest.param(4, marks=pytest.mark.points(2)),
    pytest.param(7, marks=pytest.mark.points(1)),
], ids=["L=1", "L=4", "L=7"])
def test_causal_mask(student, device, L):
    check_mask(student, "causal_mask", L, kwargs={"device": device}, ref_fn=lambda L, device: ref.causal_mask(L),
               what=f"causal_mask({L}, device={device!r})", device=device)


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
    check_inputs_kept(student, "apply_mask", scores, mask, names=["scores", "mask"])


@pytest.mark.points(2)
def test_apply_mask_gradients(student, rng, device):
    # checked where the contract defines them: through the softmax that follows, which gives a
    # masked score no gradient whether it was filled with -inf or had -inf added
    scores = randn(rng, 2, 5, 5, dtype=torch.float64, device=device)
    mask = ref.causal_mask(5, device=device)
    check_grads(student, "apply_mask", ref.apply_mask, [scores, mask], [0], rng,
                what="apply_mask(scores, mask) followed by a softmax", names=["scores"],
                upstream=upstream_through_softmax(scores, mask, rng))


@pytest.mark.cuda  # float16 and bfloat16 are checked on CUDA only
def test_apply_mask_half_precision(student, rng, device):
    mask = ref.causal_mask(5, device=device)
    for dtype in HALF_DTYPES:
        scores = randn(rng, 2, 3, 5, 5, dtype=dtype, device=device)
        what = f"apply_mask(scores, mask) in {dtype_text(dtype)}"
        check_apply(student, scores, mask, what=what)


# -- padding_mask(lengths, L) ------------------------------------------------------------------------


@pytest.mark.parametrize("lengths, L", [
    pytest.param([3, 5, 1, 2], 5, marks=pytest.mark.points(2), id="mixed"),
    pytest.param([0, 5], 5, id="empty-and-full"),
    pytest.param([1, 0, 1], 1, marks=pytest.mark.hidden, id="L=1"),
])
def test_padding_mask(student, device, lengths, L):
    lengths = torch.tensor(lengths, device=device)
    check_mask(student, "padding_mask", lengths, L, what=f"padding_mask(lengths={lengths.tolist()}, L={L})",
               device=device)
