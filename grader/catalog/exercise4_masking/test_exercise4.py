"""Exercise 4 — Causal and padding masks: `causal_mask(L, device)`, `apply_mask(scores, mask)` and
`padding_mask(lengths, L)`. A mask is bool and True means "may attend"; masked scores are -inf."""

import pytest
import torch

import lumen_ref as ref
from grader.grading.compare import Mismatch, check_tensor, dtype_text, shape_text
from grader.grading.testkit import (PEEKS_AT_THE_FUTURE, check_call, check_device_kept, check_grads, check_inputs_kept, dims, randn,
                                    upstream_through_softmax)

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.bfloat16, torch.float16]  # bfloat16 first: it holds any fill a float32 does, so a wrong one shows as a value

# scores (B..., L_q, L_k), or (B..., L, L) under a causal mask; padding: lengths (B,) and L keys.
# tests/catalog/test_sizes.py holds every case to the rule (padding: max(lengths) < L).
SIZES = {
    "causal_mask[L=1]": dict(L=1, edge="one token"),
    "causal_mask[L=4]": dict(L=4),
    "causal_mask[L=7]": dict(L=7),
    "no_peeking": dict(B=2, L=6),
    "apply_values": dict(B=(2, 3), L=5),
    "apply_padding_broadcast": dict(B=3, L_q=4, L_k=6, lengths=[5, 2, 4]),
    "apply_queries_ne_keys": dict(B=2, L_q=3, L_k=7),
    "apply_fully_masked_rows": dict(B=2, L_q=3, L_k=4, lengths=[0, 2]),
    "apply_huge_and_zero": dict(L=3),
    "apply_not_in_place": dict(B=2, L=4),
    "apply_gradients": dict(B=2, L=5),
    "apply_half": dict(B=(2, 3), L=5),
    "padding_mask[mixed]": dict(B=4, L=6, lengths=[3, 5, 1, 2]),
    "padding_mask[empty]": dict(B=2, L=5, lengths=[0, 3]),
    "padding_mask[L=1]": dict(B=3, L=1, lengths=[1, 0, 1], edge="one key"),
    "on_the_inputs_device": dict(B=2, L=5, lengths=[3, 0]),
}


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
    pytest.param(SIZES["causal_mask[L=1]"]["L"], marks=pytest.mark.points(1)),
    pytest.param(SIZES["causal_mask[L=4]"]["L"], marks=pytest.mark.points(2)),
    pytest.param(SIZES["causal_mask[L=7]"]["L"], marks=pytest.mark.points(1)),
], ids=["L=1", "L=4", "L=7"])
def test_causal_mask(student, device, L):
    check_mask(student, "causal_mask", L, kwargs={"device": device}, ref_fn=lambda L, device: ref.causal_mask(L),
               what=f"causal_mask({L}, device={device!r})", device=device)


@pytest.mark.needs_values("test_apply_mask_values")
@pytest.mark.points(2)
def test_no_peeking_at_the_future(student, rng):
    B, L = SIZES["no_peeking"]["B"], SIZES["no_peeking"]["L"]
    mask = student.causal_mask(L)
    scores = randn(rng, B, L, L)
    future = torch.ones(L, L, dtype=torch.bool).triu(diagonal=1)  # key j > query i
    changed = torch.where(future, randn(rng, B, L, L, scale=10.0), scores)
    before, after = student.apply_mask(scores, mask), student.apply_mask(changed, mask)
    check_tensor(before, what=f"apply_mask(scores, causal_mask({L}))", shape=scores.shape)
    check_tensor(after, what=f"apply_mask(scores, causal_mask({L}))", shape=scores.shape)
    leaks = ~((before == after) | (torch.isnan(before) & torch.isnan(after)))
    if bool(leaks.any()):
        _, i, j = (int(n) for n in leaks.nonzero()[0])
        raise Mismatch(f"after apply_mask(scores, causal_mask({L})), query {i} still sees key {j} > {i}: changing "
                       f"a future token's score changed what token {i} reads (no peeking at the future)",
                       cause=PEEKS_AT_THE_FUTURE)
    if bool(((before == float("-inf")) | torch.isnan(before)).all()):  # hides every key of every query: it peeks
        raise Mismatch(f"after apply_mask(scores, causal_mask({L})) no query reads any key, not even its own: a "
                       f"causal mask hides only the future, so each query still sees itself and the keys before "
                       f"it")  # at nothing, and computes nothing (round 58's a02)


# -- apply_mask(scores, mask) ------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_apply_mask_values(student, rng, device, dtype):
    size = SIZES["apply_values"]
    scores = randn(rng, *dims(size, "B", "L", "L"), dtype=dtype, device=device)  # (B, H, L, L)
    mask = ref.causal_mask(size["L"], device=device)  # (L, L): broadcasts over batch and heads
    check_apply(student, scores, mask, what=f"apply_mask(scores {shape_text(scores.shape)}, causal mask "
                                            f"{shape_text(mask.shape)})")


def test_apply_mask_padding_broadcast(student, rng):
    size = SIZES["apply_padding_broadcast"]
    scores = randn(rng, *dims(size, "B", "L_q", "L_k"))  # (B, L_q, L)
    mask = ref.padding_mask(torch.tensor(size["lengths"]), size["L_k"])  # (B, 1, L)
    check_apply(student, scores, mask, what=f"apply_mask(scores {shape_text(scores.shape)}, padding mask "
                                            f"{shape_text(mask.shape)})")


def test_apply_mask_queries_ne_keys(student, rng):
    size = SIZES["apply_queries_ne_keys"]
    L_q, L_k = size["L_q"], size["L_k"]
    scores = randn(rng, *dims(size, "B", "L_q", "L_k"))  # new queries after L_k - L_q cached tokens
    mask = torch.ones(L_q, L_k, dtype=torch.bool).tril(diagonal=L_k - L_q)
    check_apply(student, scores, mask, what=f"apply_mask(scores {shape_text(scores.shape)}, mask ({L_q}, {L_k}))")


@pytest.mark.hidden
def test_apply_mask_fully_masked_rows(student, rng):
    size = SIZES["apply_fully_masked_rows"]
    scores = randn(rng, *dims(size, "B", "L_q", "L_k"))
    mask = ref.padding_mask(torch.tensor(size["lengths"]), size["L_k"])  # sequence 0 has no real key at all
    check_apply(student, scores, mask, what="apply_mask with a padding mask of length 0 (every key masked)")


@pytest.mark.hidden
def test_apply_mask_keeps_huge_and_zero_scores(student):
    scores = torch.tensor([[1e4, -1e4, 0.0], [0.0, 1e4, -1e4], [-1e4, 0.0, 1e4]])
    check_apply(student, scores, ref.causal_mask(3), what="apply_mask of scores ±1e4 and 0")


@pytest.mark.needs_values("test_apply_mask_values")
@pytest.mark.points(2)
def test_apply_mask_not_in_place(student, rng, device):
    size = SIZES["apply_not_in_place"]
    scores = randn(rng, *dims(size, "B", "L", "L"), device=device)
    mask = ref.causal_mask(size["L"], device=device)
    check_inputs_kept(student, "apply_mask", scores, mask, names=["scores", "mask"], new=True)
    # a mask that hides nothing still asks for a new tensor (round 26's a5 returned `scores` itself)
    check_inputs_kept(student, "apply_mask", scores, torch.ones_like(mask), names=["scores", "mask"], new=True)


@pytest.mark.needs_values("test_apply_mask_values")  # the identity's gradient is a masked one's (round 58's a01)
@pytest.mark.points(2)
def test_apply_mask_gradients(student, rng, device):
    # checked where the contract defines them: through the softmax that follows, which gives a
    # masked score no gradient whether it was filled with -inf or had -inf added
    size = SIZES["apply_gradients"]
    scores = randn(rng, *dims(size, "B", "L", "L"), dtype=torch.float64, device=device)
    mask = ref.causal_mask(size["L"], device=device)
    check_grads(student, "apply_mask", ref.apply_mask, [scores, mask], [0], rng,
                what="apply_mask(scores, mask) followed by a softmax", names=["scores"],
                upstream=upstream_through_softmax(scores, mask, rng))


def test_apply_mask_half_precision(student, rng, device):
    size = SIZES["apply_half"]
    mask = ref.causal_mask(size["L"], device=device)
    for dtype in HALF_DTYPES:
        scores = randn(rng, *dims(size, "B", "L", "L"), dtype=dtype, device=device)
        what = f"apply_mask(scores, mask) in {dtype_text(dtype)}"
        check_apply(student, scores, mask, what=what)


# -- padding_mask(lengths, L) ------------------------------------------------------------------------


@pytest.mark.parametrize("case", [
    pytest.param("mixed", marks=pytest.mark.points(2)),
    pytest.param("empty"),
    pytest.param("L=1", marks=pytest.mark.hidden),
])
def test_padding_mask(student, device, case):
    size = SIZES[f"padding_mask[{case}]"]
    lengths, L = torch.tensor(size["lengths"], device=device), size["L"]
    check_mask(student, "padding_mask", lengths, L, what=f"padding_mask(lengths={lengths.tolist()}, L={L})",
               device=device)
    check_inputs_kept(student, "padding_mask", lengths, L, names=["lengths"])  # round 26's a11 edited them


# -- devices: a mask is made on its inputs' device ------------------------------------------------


@pytest.mark.needs_values(causal_mask="test_causal_mask", apply_mask="test_apply_mask_values",
                          padding_mask="test_padding_mask")
@pytest.mark.parametrize("call", ["causal_mask", "apply_mask", "padding_mask"])
def test_masks_stay_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with the inputs on a stand-in device."""
    size = SIZES["on_the_inputs_device"]
    L, lengths = size["L"], size["lengths"]
    scores, mask = randn(rng, *dims(size, "B", "L", "L")), ref.causal_mask(L)
    calls = {"causal_mask": ((L,), "device", f"causal_mask({L}, device)"),
             "apply_mask": ((scores, mask), None, "apply_mask(scores, mask)"),
             "padding_mask": ((torch.tensor(lengths), L), None, f"padding_mask(lengths, {L})")}
    args, device_arg, what = calls[call]
    check_device_kept(student, call, *args, device=device, what=what, device_arg=device_arg)
