"""Exercise 3 — Scale by √d_k: `scale_scores(scores, d_k)` and `scaled_scores(q, k)`."""

import math

import pytest
import torch

import lumen_ref as ref
from grader.grading.compare import Mismatch, dtype_text
from grader.grading.testkit import (cases, check_call, check_device_kept, check_grads, check_inputs_kept, dims,
                                    product_conditioning, randn)

SCALE = ("test_scale_scores_values", "test_zero_and_huge_scores")  # what property tests of each function wait on
SCALED = ("test_scaled_scores_shapes", "test_scaled_scores_width")
DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = (torch.float16, torch.bfloat16)  # the docstring promises them too

# scores (B..., L_q, L_k) with d_k; q (B..., L_q, d_k), k (B..., L_k, d_k); held to the rule by tests/catalog/test_sizes.py
SIZES = {
    "scale_values": dict(B=(2, 3), L_q=5, L_k=7, d_k=130),  # isqrt(130) = 11 ≠ √130, and no size of the call is 11
    "scaled_shapes[batch]": dict(B=2, L_q=4, L_k=6, d_k=5),
    "scaled_shapes[L=1]": dict(B=1, L_q=1, L_k=3, d_k=10, edge="one query"),
    "scaled_shapes[extra-batch-dims]": dict(B=(2, 3, 5), L_q=7, L_k=9, d_k=6),
    "scaled_width[1]": dict(B=3, L_q=5, L_k=4, d_k=1, edge="d_k = 1: √d_k = 1 hides nothing but the shape"),
    "scaled_width[10]": dict(B=3, L_q=5, L_k=4, d_k=10),
    "scaled_width[64]": dict(B=3, L_q=5, L_k=4, d_k=64),
    "scaled_width[100]": dict(B=3, L_q=5, L_k=4, d_k=100),
    "spread": dict(L_q=256, L_k=200, d_k=512),
    "zero_and_huge": dict(L_q=3, L_k=4, d_k=16),
    "inputs": dict(L_q=3, L_k=5, d_k=4),
    "gradients": dict(B=2, L_q=5, L_k=3, d_k=6),
}


def qk(rng, name, **options):
    """q and k of the SIZES case `name` (options: randn's)."""
    size = SIZES[name]
    return randn(rng, *dims(size, "B", "L_q", "d_k"), **options), randn(rng, *dims(size, "B", "L_k", "d_k"), **options)


def check_scaled(student, q, k, **options):
    """The student's scaled_scores(q, k) against the reference's; a product's rounding allowed for."""
    return check_call(student, "scaled_scores", q, k, ref=ref.scaled_scores,
                      magnitude=product_conditioning(ref.scaled_scores), **options)


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_scale_scores_values(student, rng, device, dtype):
    size = SIZES["scale_values"]
    for dtype in (dtype, *(HALF_DTYPES if dtype == torch.float32 else ())):  # the docstring's half precision too
        scores = randn(rng, *dims(size, "B", "L_q", "L_k"), dtype=dtype, device=device, scale=8.0)
        half = f" in {dtype_text(dtype)}" if dtype in HALF_DTYPES else ""
        check_call(student, "scale_scores", scores, size["d_k"], ref=ref.scale_scores,
                   what=f"scale_scores(scores, {size['d_k']}){half}", like=scores)


@pytest.mark.points(2)
@pytest.mark.parametrize("case", cases(SIZES, "scaled_shapes"))
def test_scaled_scores_shapes(student, rng, device, case):
    q, k = qk(rng, f"scaled_shapes[{case}]", device=device)
    check_scaled(student, q, k, what="scaled_scores(q, k)", like=q)
    for dtype in HALF_DTYPES if case == "batch" else ():  # float16 and bfloat16 come back as they went in (round 26)
        half_q, half_k = q.to(dtype), k.to(dtype)
        check_scaled(student, half_q, half_k, what=f"scaled_scores(q, k) in {dtype_text(dtype)}", like=half_q)


@pytest.mark.parametrize("d_k", cases(SIZES, "scaled_width"))
def test_scaled_scores_width(student, rng, d_k):
    size = SIZES[f"scaled_width[{d_k}]"]
    q, k = randn(rng, *dims(size, "B", "L_q", "d_k")), randn(rng, *dims(size, "L_k", "d_k"))  # k broadcasts
    check_scaled(student, q, k, what=f"scaled_scores with d_k = {d_k}")


@pytest.mark.needs_values(*SCALED)  # noise of spread 1 is no scaled score (round 57's a01)
def test_scaled_scores_keeps_unit_spread(student, rng):
    q, k = qk(rng, "spread")
    got = student.scaled_scores(q, k)
    spread = float(got.std()) if isinstance(got, torch.Tensor) and got.is_floating_point() else float("nan")
    if not 0.8 < spread < 1.25:
        raise Mismatch(f"scaled scores of unit-variance q, k at d_k = 512 have spread {spread:.2f}, expected "
                       f"about 1 (unscaled it would be {math.sqrt(512):.1f}): divide by √d_k",
                       call={"target": "scaled_scores", "args": (q, k), "kwargs": {}, "got": got})


@pytest.mark.hidden
def test_zero_and_huge_scores(student, device):
    size = SIZES["zero_and_huge"]
    zeros = torch.zeros(size["L_q"], size["L_k"], device=device)
    check_call(student, "scale_scores", zeros, size["d_k"], ref=ref.scale_scores, what="scale_scores of zeros")
    huge = torch.full((size["L_q"], size["L_k"]), 1e4, device=device)  # 1e4 / √16 = 2500
    check_call(student, "scale_scores", huge, size["d_k"], ref=ref.scale_scores,
               what="scale_scores of scores of 1e4")


@pytest.mark.needs_values(*SCALE, *SCALED)
def test_inputs_not_modified(student, rng, device):
    """Inputs left as they were, and scale_scores' result a new tensor, as its docstring says: at d_k = 1
    too, where there is nothing to divide (round 10 of the unseen corpus returned the scores themselves)."""
    size = SIZES["inputs"]
    for d_k in (size["d_k"], 1):
        scores = randn(rng, size["L_q"], size["L_k"], device=device)
        check_inputs_kept(student, "scale_scores", scores, d_k, names=["scores"], new=True)
    q, k = qk(rng, "inputs", device=device)
    check_inputs_kept(student, "scaled_scores", q, k, names=["q", "k"])


@pytest.mark.needs_values(scale_scores=SCALE, scaled_scores=SCALED)
@pytest.mark.parametrize("call", ["scale_scores", "scaled_scores"])
def test_scaling_stays_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU (a tensor of √d_k): on CUDA itself, and on the CPU with the inputs on
    a stand-in device."""
    size, (q, k) = SIZES["inputs"], qk(rng, "inputs")
    args = (q @ k.mT, size["d_k"]) if call == "scale_scores" else (q, k)
    check_device_kept(student, call, *args, device=device, what=f"{call}(...)")


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    q, k = qk(rng, "gradients", dtype=torch.float64, device=device)
    check_grads(student, "scaled_scores", ref.scaled_scores, [q, k], [0, 1], rng,
                what="scaled_scores(q, k)", names=["q", "k"])
