"""Exercise 2 — Score every key: `attention_scores(q, k)`, the raw S = Q Kᵀ."""

import math

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, check_close, check_tensor, check_unchanged, shape_text
from grader.testkit import as64, check_grads, randn

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

# The chapter's napkin example, Step 2: "sat" asks q = [1, 2, 0]; against the keys of "The", "cat",
# "sat" and "down" it scores 0, 5, 1 and 2 ("cat"'s key [1, 2, 0] is exactly what it looks for).
NAPKIN_Q = [[1.0, 2.0, 0.0]]
NAPKIN_K = [[0.0, 0.0, 1.0], [1.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]


# -- checking, with the chapter's explanation of the classic mistakes --------------------------------


def check_scores(student, q, k, *, what="attention_scores(q, k)"):
    """The student's attention_scores(q, k) against the reference's in float64.

    As `testkit.check_call` (a failure carries the call, for diagnoses), plus: the dtype and device
    must be q's, and a wrong answer that is a classic mistake gets the chapter's explanation.
    """
    got = student.run("attention_scores", q, k)["value"]
    q64, k64 = as64(q), as64(k)
    expected = ref.attention_scores(q64, k64)
    try:
        check_tensor(got, what=what, dtype=q.dtype, device=q.device.type)
        check_close(got, expected, what=what)
    except Mismatch as mismatch:
        mismatch.details["call"] = {"target": "attention_scores", "args": (q, k), "kwargs": {}, "got": got}
        try:
            explanation = explain(got, expected, q64, k64)
        except Exception:  # noqa: BLE001 - a diagnosis must never turn a wrong answer into a grader error
            explanation = None
        if explanation:
            raise Mismatch(f"{what}: {explanation}", **mismatch.details) from None
        raise
    return got


def explain(got, expected, q, k):
    """A sentence for a wrong score matrix that is a known mistake, else None."""
    if not isinstance(got, torch.Tensor) or not got.is_floating_point():
        return None
    L_q, L_k = q.size(-2), k.size(-2)
    if same(got, expected.transpose(-2, -1)):
        return (f"scores must be (L_q, L_k) = ({L_q}, {L_k}): row i holds query i against every key; yours "
                "has one row per key — transpose k, not q: q @ k.transpose(-2, -1)")
    if same(got, expected / math.sqrt(q.size(-1))):
        return (f"these are already divided by √d_k = {math.sqrt(q.size(-1)):.4g}: attention_scores is "
                "Step 2, the raw S = Q Kᵀ; scaling is Step 3 (exercise 3)")
    if q.dim() > 2:
        try:
            reversed_k = q @ k.permute(*range(k.dim() - 1, -1, -1))  # what q @ k.T computes
        except RuntimeError:
            reversed_k = None
        if reversed_k is not None and same(got, reversed_k):
            return ("k.T reverses ALL of k's dims, batch dims too; swap only the last two: "
                    "k.transpose(-2, -1) (or k.mT)")
        if tuple(got.shape) != tuple(expected.shape):
            return (f"shape {shape_text(got.shape)}, expected (..., L_q, L_k) = {shape_text(expected.shape)}: "
                    "keep the batch dims in front and swap only k's last two dims, k.transpose(-2, -1)")
    return None


def same(got, value):
    """got holds value's numbers (float64 CPU), within a loose tolerance: a mistake, recognised."""
    if tuple(got.shape) != tuple(value.shape):
        return False
    return torch.allclose(got.detach().to("cpu", torch.float64), value, rtol=1e-2, atol=1e-3)


# -- the tests ----------------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_scores_values(student, rng, device, dtype):
    q = randn(rng, 2, 3, 5, 6, dtype=dtype, device=device)  # (B, H, L_q, d_k)
    k = randn(rng, 2, 3, 7, 6, dtype=dtype, device=device)  # (B, H, L_k, d_k), L_k != L_q
    check_scores(student, q, k)


@pytest.mark.points(2)
def test_scores_napkin_example(student):
    q, k = torch.tensor(NAPKIN_Q), torch.tensor(NAPKIN_K)
    check_scores(student, q, k,
                 what="'sat' = [1, 2, 0] scoring the keys of 'The cat sat down' (Step 2: 0, 5, 1, 2)")


@pytest.mark.parametrize("q_shape, L_k", [
    ((5, 6), 7),
    ((2, 1, 8), 6),
    ((2, 6, 8), 1),
    ((1, 3, 4), 4),
    ((2, 3, 2, 5, 7), 4),
], ids=["no-batch", "L_q=1", "L_k=1", "batch-of-one", "extra-batch-dims"])
def test_scores_shapes(student, rng, q_shape, L_k):
    *batch, L_q, d_k = q_shape
    q, k = randn(rng, *q_shape), randn(rng, *batch, L_k, d_k)
    what = f"attention_scores(q, k) with q {shape_text(q.shape)}, k {shape_text(k.shape)}"
    check_scores(student, q, k, what=what)


@pytest.mark.hidden
def test_scores_zero_and_huge(student, rng, device):
    q, k = torch.zeros(3, 5, device=device), randn(rng, 4, 5, device=device)
    check_scores(student, q, k, what="attention_scores of zero queries")
    q, k = randn(rng, 2, 3, 4, device=device, scale=50.0), randn(rng, 2, 5, 4, device=device, scale=50.0)
    check_scores(student, q, k, what="attention_scores of q, k around ±50 (scores up to about 1e4)")


def test_inputs_not_modified(student, rng, device):
    q, k = randn(rng, 2, 3, 4, device=device), randn(rng, 2, 5, 4, device=device)
    reply = student.run("attention_scores", q, k, return_args=True)
    check_unchanged(q, reply["args"][0], what="q")
    check_unchanged(k, reply["args"][1], what="k")


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    q = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    k = randn(rng, 2, 3, 6, dtype=torch.float64, device=device)
    check_scores(student, q, k)
    check_grads(student, "attention_scores", ref.attention_scores, [q, k], [0, 1], rng,
                what="attention_scores(q, k)", names=["q", "k"])


def test_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("float16 and bfloat16 are checked on CUDA only")
    for dtype in HALF_DTYPES:
        q = randn(rng, 2, 3, 5, 8, dtype=dtype, device=device)
        k = randn(rng, 2, 3, 7, 8, dtype=dtype, device=device)
        check_scores(student, q, k, what=f"attention_scores(q, k) in {str(dtype).removeprefix('torch.')}")
