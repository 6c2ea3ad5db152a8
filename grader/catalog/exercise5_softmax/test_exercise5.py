"""Exercise 5 — Softmax and scaled dot-product attention: `softmax(x, dim=-1)` and
`scaled_dot_product_attention(q, k, v, mask=None) -> (output, weights)`."""

import pytest
import torch

import lumen_ref as ref
from grader.catalog.exercise5_softmax.misconceptions import NAN_GRADIENT
from grader.grading.compare import Mismatch, attention_magnitude, dtype_text, softmax_magnitude
from grader.sandbox.judge import StudentError
from grader.grading.testkit import (
    as64,
    cases,
    check_call,
    check_device_kept,
    check_gradients,
    check_grads,
    gradient_call,
    check_inputs_kept,
    check_output_shapes,
    dims,
    randn,
    reference_grads,
)

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

# softmax: x's shape, one distinct size per axis; attention: q (B..., L_q, d_k), k (B..., L_k, d_k),
# v (B..., L_k, d_v). tests/catalog/test_sizes.py holds every case to the rule.
SIZES = {
    "softmax_values": dict(B=(2, 3), L_q=5, L_k=7),
    "softmax_any_dim": dict(B=3, L_q=4, L_k=5),
    "softmax_fully_masked": dict(B=2, L_q=4, L_k=6),
    "softmax_gradients": dict(B=3, L_q=4, L_k=5),
    "softmax_half": dict(B=2, L_q=4, L_k=6),
    "attention_values": dict(B=(2, 3), L_q=5, L_k=7, d_k=8, d_v=6),
    "attention_shapes[no-batch]": dict(L_q=4, L_k=6, d_k=5, d_v=3),
    "attention_shapes[L=1]": dict(B=2, L_q=1, L_k=1, d_k=5, d_v=3, edge="one token"),
    "attention_shapes[extra-batch-dims]": dict(B=(2, 4), L_q=3, L_k=6, d_k=5, d_v=7),
    "causal_broadcasts": dict(B=(2, 3), L=6, d_k=4, d_v=5),
    "padding_broadcasts": dict(B=(3, 2), L_q=4, L_k=6, d_k=5, d_v=7, lengths=[5, 2, 4]),
    "fully_masked_rows": dict(B=(2, 3), L=5, d_k=4, d_v=6, lengths=[3, 0]),
    "attention_huge": dict(B=2, L_q=4, L_k=6, d_k=5, d_v=3),
    "attention_zero": dict(B=2, L_q=3, L_k=5, d_k=4, d_v=6),
    "attention_inputs": dict(B=2, L_q=4, L_k=5, d_k=3, d_v=6),
    "attention_gradients": dict(B=(2, 3), L_q=5, L_k=6, d_k=4, d_v=7),
    "gradients_fully_masked": dict(B=2, L=5, d_k=4, d_v=3),
    "attention_half": dict(B=(2, 3), L=5, d_k=8, d_v=6),
    "softmax_gradients_fully_masked": dict(B=3, L_q=4, L_k=6),
    "gradients_padding": dict(B=(3, 2), L_q=4, L_k=6, d_k=5, d_v=7, lengths=[5, 0, 3]),
}
SDPA = "scaled_dot_product_attention"
STABLE_HINT = ("e^x overflowed to inf and inf / inf is NaN: subtract each slice's max before torch.exp, so that no "
               "exponent is above 0 (the max, not another value of the slice)")
EMPTY_SLICE_HINT = ("is that slice entirely -inf? It must give zeros, not 0/0 = NaN: shift by 0 where the "
                    "max is -inf, and divide by 1 where the sum is 0")


# -- softmax ---------------------------------------------------------------------------------


def _check_softmax(student, x, dim=-1, *, what=None, nan_hint=""):
    """The student's softmax(x, dim) against the reference's, in x's dtype and device."""
    return check_call(student, "softmax", x, kwargs={"dim": dim}, ref=ref.softmax,
                      what=what or f"softmax(x, dim={dim})", like=x, nan_hint=nan_hint,
                      picture="weights" if dim in (-1, x.dim() - 1) else None,
                      magnitude=lambda weights, x, dim: softmax_magnitude(x, weights, dim))


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_softmax_values(student, rng, device, dtype):
    x = randn(rng, *dims(SIZES["softmax_values"], "B", "L_q", "L_k"), dtype=dtype, device=device, scale=3.0)
    _check_softmax(student, x)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_any_dim(student, rng, dim):
    x = randn(rng, *dims(SIZES["softmax_any_dim"], "B", "L_q", "L_k"), scale=2.0)  # every axis a different size
    _check_softmax(student, x, dim)
    if dim == 1:  # the middle axis counted from the end too: -1 is not the only negative dim (round 26's a6)
        _check_softmax(student, x, dim - x.dim())
    if dim != -1 and _passes(_check_softmax, student, _all_inf_row(x)):  # along -1: the fully masked test's
        slice_ = (slice(None), 1, 2) if dim == 0 else (1, slice(None), 3)  # a slice along dim, all -inf
        masked = x.clone()
        masked[slice_] = float("-inf")
        _check_softmax(student, masked, dim, what=f"softmax(x, dim={dim}) with x[{_text(slice_)}] all -inf",
                       nan_hint=f"x[{_text(slice_)}] is a slice along dim {dim} entirely -inf: it must give zeros, not "
                                "0/0 = NaN, whichever axis dim names. Take the max and the sum along dim and guard "
                                "them there: shift by 0 where the max is -inf, and divide by 1 where the sum is 0")


@pytest.mark.points(2)
def test_softmax_huge_scores(student, device):
    # scores like 1e4 (exact in float32): e^1e4 overflows, e^-1e4 underflows to 0; a row whose maximum is far
    # below the others' but above 0 tells a shift by the whole tensor's max from one by a max clamped at 0; a row
    # far below -1e4 tells the max itself from one clamped at -1e4 (round 84's a05)
    x = torch.tensor([[1e4, 1e4 - 1, 1e4 - 2.5, 0.0],
                      [-1e4, -1e4 + 2, -1e4 - 1, -1e4],
                      [1e4, -1e4, 0.0, 1e4],
                      [5e3, 5e3 - 1, 5e3 + 1.5, 0.0],
                      [-1e5, -1e5 + 2, -1e5 - 1, -1e5 + 0.5]], device=device)
    _check_softmax(student, x, what="softmax of scores like ±1e4", nan_hint=STABLE_HINT)


@pytest.mark.points(2)
def test_softmax_fully_masked_slice(student, rng, device):
    x = randn(rng, *dims(SIZES["softmax_fully_masked"], "B", "L_q", "L_k"), device=device)
    x[0, 1, 2:] = float("-inf")  # partly masked: the rest still sums to 1
    x[1, 2] = float("-inf")  # a query that may see no key at all
    x[0, 3, :5] = float("-inf")  # one key left
    _check_softmax(student, x, what="softmax(x) with -inf entries", nan_hint=EMPTY_SLICE_HINT)


@pytest.mark.hidden
def test_softmax_zero_and_single_scores(student, device):
    _check_softmax(student, torch.zeros(2, 5, device=device), what="softmax of zeros")
    _check_softmax(student, torch.full((3, 1), 7.0, device=device), what="softmax over a single score")


def test_softmax_gradients(student, rng, device):
    x = randn(rng, *dims(SIZES["softmax_gradients"], "B", "L_q", "L_k"), dtype=torch.float64, device=device,
              scale=2.0)
    x[1, 2, :3] = float("-inf")  # masked entries get zero gradient
    check_grads(student, "softmax", ref.softmax, [x], [0], rng, what="softmax(x)", names=["x"])


# -- scaled dot-product attention -------------------------------------------------------------


def qkv(rng, name, **options):
    """q, k and v of the SIZES case `name` (options: randn's); L stands for L_q = L_k."""
    size = dict(SIZES[name])
    size.setdefault("L_q", size.get("L")), size.setdefault("L_k", size.get("L"))
    return tuple(randn(rng, *dims(size, "B", length, width), **options)
                 for length, width in (("L_q", "d_k"), ("L_k", "d_k"), ("L_k", "d_v")))


def _check_attention(student, q, k, v, mask=None, *, what, nan_hint=""):
    """The student's (output, weights) against the reference's, weights first: they explain the output."""
    args = (q, k, v) if mask is None else (q, k, v, mask)
    return check_call(student, SDPA, *args, ref=ref.scaled_dot_product_attention, what=what, like=q,
                      labels=("output", "weights"), order=(1, 0), nan_hint=nan_hint, picture={1: "weights"},
                      magnitude=lambda expected, q, k, v, *mask: attention_magnitude(q, k, v, expected[1]))


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_attention_values(student, rng, device, dtype):
    q, k, v = qkv(rng, "attention_values", dtype=dtype, device=device)
    _check_attention(student, q, k, v, what="scaled_dot_product_attention(q, k, v)")


@pytest.mark.parametrize("case", cases(SIZES, "attention_shapes"))
def test_attention_shapes(student, rng, case):
    q, k, v = qkv(rng, f"attention_shapes[{case}]")
    _check_attention(student, q, k, v, what=f"scaled_dot_product_attention on q of shape {tuple(q.shape)}")


@pytest.mark.points(2)
def test_causal_mask_broadcasts(student, rng, device):
    q, k, v = qkv(rng, "causal_broadcasts", device=device)
    L = SIZES["causal_broadcasts"]["L"]
    mask = ref.causal_mask(L, device=device)  # (L_q, L_k) against scores (B, H, L_q, L_k)
    _check_attention(student, q, k, v, mask, what=f"scaled_dot_product_attention(q, k, v, causal_mask({L}))")


@pytest.mark.points(2)
def test_padding_mask_broadcasts(student, rng, device):
    size = SIZES["padding_broadcasts"]
    q, k, v = qkv(rng, "padding_broadcasts", device=device)
    lengths = torch.tensor(size["lengths"], device=device)
    mask = ref.padding_mask(lengths, size["L_k"])[:, None]  # (B, 1, 1, L_k): key j is real where j < length
    _check_attention(student, q, k, v, mask, what="scaled_dot_product_attention with a (B, 1, 1, L_k) padding mask")


@pytest.mark.parametrize("case", ["query-3", "empty-sequence"])
def test_fully_masked_rows(student, rng, device, case):
    size = SIZES["fully_masked_rows"]
    q, k, v = qkv(rng, "fully_masked_rows", device=device)
    if case == "query-3":
        mask = ref.causal_mask(size["L"], device=device)
        mask[3] = False  # query 3 may see no key at all
        hint = ("query 3 has NaN: every key is masked for it, and a fully masked row must give zero weights "
                "and a zero output, not 0/0 = NaN (use your stable softmax)")
    else:
        mask = ref.padding_mask(torch.tensor(size["lengths"], device=device), size["L"])[:, None]  # 1: no keys
        hint = ("sequence 1 has length 0, so every key is masked for its queries: a fully masked row must "
                "give zero weights and a zero output, not 0/0 = NaN (use your stable softmax)")
    _check_attention(student, q, k, v, mask, what="scaled_dot_product_attention with a fully masked row",
                     nan_hint=hint)


@pytest.mark.points(2)
def test_attention_huge_scores(student, rng, device):
    q, k, _ = qkv(rng, "attention_huge", dtype=torch.float64, device=device, scale=60.0)  # scores 1e3..1e4
    _, _, v = qkv(rng, "attention_huge", dtype=torch.float64, device=device)
    size = SIZES["attention_huge"]
    mask = ref.causal_mask(size["L_k"], device=device)[size["L_k"] - size["L_q"]:]
    _check_attention(student, q, k, v, mask,
                     what="scaled_dot_product_attention with scores of order 1e4", nan_hint=STABLE_HINT)


@pytest.mark.hidden
def test_attention_zero_scores(student, rng, device):
    q, k, v = qkv(rng, "attention_zero", device=device)
    # every score 0: uniform weights, output = mean of v
    _check_attention(student, torch.zeros_like(q), k, v, what="scaled_dot_product_attention with all scores 0")


@pytest.mark.needs_values("test_softmax_values", "test_attention_values")
def test_inputs_not_modified(student, rng, device):
    size = SIZES["attention_inputs"]
    x = randn(rng, size["L_q"], size["L_k"], device=device)
    x[1, 3:] = float("-inf")
    check_inputs_kept(student, "softmax", x, names=["x"], new=True)
    q, k, v = qkv(rng, "attention_inputs", device=device)
    mask = torch.ones(size["L_q"], size["L_k"], dtype=torch.bool, device=device).tril(1)
    check_inputs_kept(student, SDPA, q, k, v, mask, names=["q", "k", "v", "mask"])


@pytest.mark.points(2)
def test_attention_gradients(student, rng, device):
    size = SIZES["attention_gradients"]
    q, k, v = qkv(rng, "attention_gradients", dtype=torch.float64, device=device)
    mask = torch.ones(size["L_q"], size["L_k"], dtype=torch.bool, device=device).tril(1)
    check_grads(student, SDPA, ref.scaled_dot_product_attention, [q, k, v, mask], [0, 1, 2], rng,
                what="scaled_dot_product_attention(q, k, v, mask)", names=["q", "k", "v"])


@pytest.mark.hidden
def test_gradients_with_fully_masked_row(student, rng, device):
    size = SIZES["gradients_fully_masked"]
    q, k, v = qkv(rng, "gradients_fully_masked", dtype=torch.float64, device=device)
    mask = ref.causal_mask(size["L"], device=device)
    mask[3] = False  # query 3 may see no key at all
    hint = ("query 3 has every key masked, and its gradients must be finite too: a NaN or inf made and then "
            "patched (nan_to_num, torch.where on the result, a sum clamped to a tiny number) still flows "
            "backwards; shift by 0 where the max is -inf and divide by 1 where the sum is 0")
    _check_masked_gradients(student, rng, q, k, v, mask, what="scaled_dot_product_attention with a fully masked row",
                            hint=hint, cause=NAN_GRADIENT)


def _check_masked_gradients(student, rng, q, k, v, mask, *, what, hint, cause):
    """The student's gradients of attention w.r.t. q, k and v, for large random upstream gradients
    on both outputs, against the float64 reference's; a mask with fully masked rows."""
    args = [q, k, v, mask]
    # large upstream gradients: a sum clamped to the smallest float gives 0 * (g / tiny) = 0 * inf = NaN
    upstream = [randn(rng, *out.shape, dtype=q.dtype, device=q.device, scale=10.0)
                for out in ref.scaled_dot_product_attention(*as64(args))]
    value = student.run(SDPA, *args)["value"]
    check_output_shapes(value, ref.scaled_dot_product_attention(*as64(args)), what=what)
    _, grads, _ = student.backward(SDPA, *args, wrt=[0, 1, 2], upstream=upstream)
    expected = reference_grads(ref.scaled_dot_product_attention, args, [0, 1, 2], upstream)
    check_gradients(grads, expected, ("q", "k", "v"), what=what, nan_hint=hint, cause=cause, general=NAN_GRADIENT_WAYS,
                    call=gradient_call(student, SDPA, args, [0, 1, 2], value, cause, upstream))


@pytest.mark.points(2)
def test_half_precision(student, rng, device):
    """In float16 and bfloat16 too, a row with nothing to attend to gives zeros: an epsilon that guards a
    float32 sum (1e-12, 1e-20) rounds to 0 there (round 61's a12 and a25). Checked where float32 gets such
    a row right: one that does not loses the fully masked tests, not this one too (round 65's a01)."""
    for dtype in HALF_DTYPES:
        name = dtype_text(dtype)
        x = randn(rng, *dims(SIZES["softmax_half"], "B", "L_q", "L_k"), dtype=dtype, device=device, scale=2.0)
        _check_softmax(student, x, what=f"softmax(x) in {name}")
        q, k, _ = qkv(rng, "attention_half", dtype=dtype, device=device, scale=0.5)
        _, _, v = qkv(rng, "attention_half", dtype=dtype, device=device)
        causal = ref.causal_mask(SIZES["attention_half"]["L"], device=device)
        _check_attention(student, q, k, v, causal, what=f"scaled_dot_product_attention in {name}")
        masked = _all_inf_row(x)
        if _passes(_check_softmax, student, masked.float()):
            _check_softmax(student, masked, what=f"softmax(x) in {name} with x[0, 1] all -inf",
                           nan_hint=HALF_EPSILON_HINT.format(name=name))
        blind = causal.clone()
        blind[1] = False  # query 1 may see no key
        if _passes(_check_attention, student, q.float(), k.float(), v.float(), blind, what="float32"):
            _check_attention(student, q, k, v, blind, what=f"scaled_dot_product_attention in {name} with query 1 "
                             "seeing no key", nan_hint=HALF_EPSILON_HINT.format(name=name))


HALF_EPSILON_HINT = ("a row with nothing to attend to gives zeros in float32 but NaN in {name}: a tiny number "
                     "added to the sum or clamped under it (1e-12, 1e-20) rounds to 0 in {name}, so 0/0 again. "
                     "Divide by 1 where the sum is 0 instead")


def _all_inf_row(x):
    """x with its row [0, 1] all -inf (a copy)."""
    masked = x.clone()
    masked[0, 1] = float("-inf")
    return masked


def _passes(check, *args, **kwargs):
    """Whether `check` passes: a gate, whose failure (a Mismatch, an error of the student's) another test
    reports."""
    try:
        check(*args, **kwargs)
    except (Mismatch, StudentError):
        return False
    return True


def _text(index):
    """An index tuple as code: (slice(None), 1, 2) -> ":, 1, 2"."""
    return ", ".join(":" if isinstance(part, slice) else str(part) for part in index)


# -- gradients through fully masked slices and padding ---------------------------------------
# A softmax may be right forward and still NaN backward: a 0/0 or -inf - -inf made and then dropped
# (torch.where on the result, nan_to_num, a sum clamped to a tiny number) still flows backwards,
# 0 * NaN = NaN. Training on padded batches then turns every weight into NaN.

# the ways such a NaN arises, which the diagnosis replaces by the student's own line where it finds it
NAN_GRADIENT_WAYS = (
    "but a NaN made and then dropped still flows backwards: torch.where(total == 0, 0, e / total) still "
    "differentiates e / total = 0/0, torch.logsumexp of an all -inf slice differentiates e^(-inf - -inf) = NaN, "
    "torch.where, nan_to_num and clamp pass on 0 * NaN = NaN, and a sum clamped to a tiny number (finfo.tiny) makes "
    "the gradient g / tiny overflow to inf, and 0 * inf = NaN.")
NAN_GRADIENT_HINT = (
    "{where}: its gradients must be finite too (zeros), " + NAN_GRADIENT_WAYS + " Guard the inputs instead: shift "
    "by 0 where the max is -inf and divide by 1 where the sum is 0 (or take the logsumexp of zeros in an all -inf "
    "slice)")


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_softmax_gradients_fully_masked_slice(student, rng, device, dtype):
    x = randn(rng, *dims(SIZES["softmax_gradients_fully_masked"], "B", "L_q", "L_k"), dtype=dtype, device=device,
              scale=2.0)
    x[0, 1] = float("-inf")  # a query that may see no key at all
    x[2, 3, 1:] = float("-inf")  # one key left
    x[1, 0, :4] = float("-inf")  # partly masked
    what = "softmax(x) with a slice of only -inf"
    _check_softmax(student, x, what=what, nan_hint=EMPTY_SLICE_HINT)  # wrong values explain wrong gradients
    # large upstream gradients: a sum clamped to the smallest float gives 0 * (g / tiny) = 0 * inf = NaN
    upstream = [randn(rng, *x.shape, dtype=dtype, device=device, scale=10.0)]
    check_grads(student, "softmax", ref.softmax, [x], [0], rng, what=what, names=["x"], upstream=upstream,
                nan_hint=NAN_GRADIENT_HINT.format(where="slice [0, 1] of x is entirely -inf"), cause=NAN_GRADIENT,
                general=NAN_GRADIENT_WAYS)


@pytest.mark.points(2)
def test_gradients_with_padding(student, rng, device):
    size = SIZES["gradients_padding"]
    q, k, v = qkv(rng, "gradients_padding", dtype=torch.float64, device=device)
    mask = ref.padding_mask(torch.tensor(size["lengths"], device=device), size["L_k"])[:, None]  # (B, 1, 1, L_k)
    what = "scaled_dot_product_attention with a (B, 1, 1, L_k) padding mask"
    _check_attention(student, q, k, v, mask, what=what, nan_hint=(
        "sequence 1 has length 0, so every key is masked for its queries: a fully masked row must give zero "
        "weights and a zero output, not 0/0 = NaN (use your stable softmax)"))
    hint = NAN_GRADIENT_HINT.format(where="sequence 1 has length 0, so every key is masked for its queries")
    _check_masked_gradients(student, rng, q, k, v, mask, what=what, hint=hint, cause=NAN_GRADIENT)


# -- devices: nothing is made on the CPU ----------------------------------------------------------


@pytest.mark.needs_values(**{"softmax": "test_softmax_values", SDPA: "test_attention_values"})
@pytest.mark.parametrize("call", ["softmax", SDPA])
def test_stays_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with the inputs on a stand-in device;
    with a fully masked row, where a hand-made softmax builds its zeros."""
    size = SIZES["fully_masked_rows"]
    L, lengths = size["L"], torch.tensor(size["lengths"])
    mask = ref.padding_mask(lengths, L)[:, None] & ref.causal_mask(L)  # (2, 1, L, L): sequence 1 sees no key
    if call == "softmax":
        x = ref.apply_mask(randn(rng, *dims(size, "B", "L", "L")), mask)
        check_device_kept(student, call, x, device=device, what="softmax(x) with a row of only -inf")
    else:
        q, k, v = (randn(rng, *dims(size, "B", "L", width)) for width in ("d_k", "d_k", "d_v"))
        check_device_kept(student, SDPA, q, k, v, mask, device=device,
                          what="scaled_dot_product_attention(q, k, v, mask) with a fully masked row")
