"""Exercise 3 — Scale by √d_k: `scale_scores(scores, d_k)` and `scaled_scores(q, k)`."""

import math

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch
from grader.testkit import check_call, check_grads, check_inputs_kept, product_conditioning, randn

DTYPES = [torch.float32, torch.float64]


def check_scaled(student, q, k, **options):
    """The student's scaled_scores(q, k) against the reference's; a product's rounding allowed for."""
    return check_call(student, "scaled_scores", q, k, ref=ref.scaled_scores,
                      magnitude=product_conditioning(ref.scaled_scores), **options)


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_scale_scores_values(student, rng, device, dtype):
    scores = randn(rng, 2, 3, 5, 7, dtype=dtype, device=device, scale=8.0)
    check_call(student, "scale_scores", scores, 64, ref=ref.scale_scores, what="scale_scores(scores, 64)",
               like=scores)


@pytest.mark.points(2)
@pytest.mark.parametrize("shape", [(4, 4, 6), (1, 1, 10), (2, 3, 5, 7, 6)], ids=["square", "L=1", "extra-batch-dims"])
def test_scaled_scores_shapes(student, rng, device, shape):
    *batch, L_q, d_k = shape
    q = randn(rng, *batch, L_q, d_k, device=device)
    k = randn(rng, *batch, L_q + 2, d_k, device=device)  # L_k != L_q
    check_scaled(student, q, k, what="scaled_scores(q, k)", like=q)


@pytest.mark.parametrize("d_k", [1, 10, 64, 100])
def test_scaled_scores_width(student, rng, d_k):
    q, k = randn(rng, 3, 5, d_k), randn(rng, 4, d_k)
    check_scaled(student, q, k, what=f"scaled_scores with d_k = {d_k}")


def test_scaled_scores_keeps_unit_spread(student, rng):
    q, k = randn(rng, 256, 512), randn(rng, 256, 512)
    got = student.scaled_scores(q, k)
    spread = float(got.std()) if isinstance(got, torch.Tensor) and got.is_floating_point() else float("nan")
    if not 0.8 < spread < 1.25:
        raise Mismatch(f"scaled scores of unit-variance q, k at d_k = 512 have spread {spread:.2f}, expected "
                       f"about 1 (unscaled it would be {math.sqrt(512):.1f}): divide by √d_k",
                       call={"target": "scaled_scores", "args": (q, k), "kwargs": {}, "got": got})


@pytest.mark.hidden
def test_zero_and_huge_scores(student, device):
    zeros = torch.zeros(3, 4, device=device)
    check_call(student, "scale_scores", zeros, 16, ref=ref.scale_scores, what="scale_scores of zeros")
    huge = torch.full((2, 3), 1e4, device=device)  # 1e4 / √16 = 2500
    check_call(student, "scale_scores", huge, 16, ref=ref.scale_scores, what="scale_scores of scores of 1e4")


def test_inputs_not_modified(student, rng, device):
    scores = randn(rng, 3, 4, device=device)
    check_inputs_kept(student, "scale_scores", scores, 16, names=["scores"])
    q, k = randn(rng, 3, 4, device=device), randn(rng, 5, 4, device=device)
    check_inputs_kept(student, "scaled_scores", q, k, names=["q", "k"])


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    q = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    k = randn(rng, 2, 3, 6, dtype=torch.float64, device=device)
    check_grads(student, "scaled_scores", ref.scaled_scores, [q, k], [0, 1], rng,
                what="scaled_scores(q, k)", names=["q", "k"])
