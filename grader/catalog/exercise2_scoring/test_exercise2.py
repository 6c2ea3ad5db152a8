"""Exercise 2 — Score every key: `attention_scores(q, k)`, the raw S = Q Kᵀ."""

import pytest
import torch

import lumen_ref as ref
from grader.grading.compare import dtype_text, shape_text
from grader.grading.testkit import (cases, check_call, check_device_kept, check_grads, check_inputs_kept, dims,
                                    product_conditioning, randn)

# property tests wait on these; not the napkin example, whose answer is the chapter's (round 57's a03 returned it)
VALUES = ("test_scores_values", "test_scores_zero_and_huge")
DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

# q (B..., L_q, d_k), k (B..., L_k, d_k); tests/catalog/test_sizes.py holds every case to the rule.
SIZES = {
    "values": dict(B=(2, 3), L_q=5, L_k=7, d_k=6),
    "shapes[no-batch]": dict(L_q=5, L_k=7, d_k=6),
    "shapes[L_q=1]": dict(B=2, L_q=1, L_k=6, d_k=8, edge="one query"),
    "shapes[L_k=1]": dict(B=2, L_q=6, L_k=1, d_k=8, edge="one key"),
    "shapes[batch-of-one]": dict(B=1, L_q=3, L_k=4, d_k=4, edge="L_k = d_k on purpose: q @ k.T then runs, and "
                                                               "the wrong shape it gives can be explained"),
    "shapes[extra-batch-dims]": dict(B=(2, 3, 8), L_q=5, L_k=4, d_k=7),
    "zero": dict(L_q=3, L_k=4, d_k=5),
    "huge": dict(B=2, L_q=3, L_k=5, d_k=4),
    "inputs": dict(B=2, L_q=3, L_k=5, d_k=4),
    "gradients": dict(B=2, L_q=5, L_k=3, d_k=6),
    "half": dict(B=(2, 3), L_q=5, L_k=7, d_k=8),
}


def qk(rng, name, **options):
    """q and k of the SIZES case `name` (options: randn's)."""
    size = SIZES[name]
    return randn(rng, *dims(size, "B", "L_q", "d_k"), **options), randn(rng, *dims(size, "B", "L_k", "d_k"), **options)

# The chapter's napkin example, Step 2: "sat" asks q = [1, 2, 0]; against the keys of "The", "cat",
# "sat" and "down" it scores 0, 5, 1 and 2 ("cat"'s key [1, 2, 0] is exactly what it looks for).
NAPKIN_Q = [[1.0, 2.0, 0.0]]
NAPKIN_K = [[0.0, 0.0, 1.0], [1.0, 2.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]


def check_scores(student, q, k, *, what="attention_scores(q, k)"):
    """The student's attention_scores(q, k) against the reference's in float64, in q's dtype and device."""
    return check_call(student, "attention_scores", q, k, ref=ref.attention_scores, what=what, like=q,
                      magnitude=product_conditioning(ref.attention_scores))


# -- the tests ----------------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_scores_values(student, rng, device, dtype):
    q, k = qk(rng, "values", dtype=dtype, device=device)  # (B, H, L_q, d_k), (B, H, L_k, d_k)
    check_scores(student, q, k)


@pytest.mark.points(2)
def test_scores_napkin_example(student):
    q, k = torch.tensor(NAPKIN_Q), torch.tensor(NAPKIN_K)
    check_scores(student, q, k,
                 what="'sat' = [1, 2, 0] scoring the keys of 'The cat sat down' (Step 2: 0, 5, 1, 2)")


@pytest.mark.parametrize("case", cases(SIZES, "shapes"))
def test_scores_shapes(student, rng, case):
    q, k = qk(rng, f"shapes[{case}]")
    what = f"attention_scores(q, k) with q {shape_text(q.shape)}, k {shape_text(k.shape)}"
    check_scores(student, q, k, what=what)


@pytest.mark.hidden
def test_scores_zero_and_huge(student, rng, device):
    q, k = qk(rng, "zero", device=device)
    check_scores(student, torch.zeros_like(q), k, what="attention_scores of zero queries")
    q, k = qk(rng, "huge", device=device, scale=50.0)
    check_scores(student, q, k, what="attention_scores of q, k around ±50 (scores up to about 1e4)")


@pytest.mark.needs_values(*VALUES)
def test_inputs_not_modified(student, rng, device):
    q, k = qk(rng, "inputs", device=device)
    for q, k in ((q, k), (q[0], k[0])):  # batched, and one sequence alone
        check_inputs_kept(student, "attention_scores", q, k, names=["q", "k"])


@pytest.mark.needs_values(*VALUES)
def test_scores_stay_on_the_inputs_device(student, rng, device):
    """Nothing made on the CPU (a buffer filled column by column): on CUDA itself, and on the CPU with
    the inputs on a stand-in device."""
    check_device_kept(student, "attention_scores", *qk(rng, "inputs"), device=device, what="attention_scores(q, k)")


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    q, k = qk(rng, "gradients", dtype=torch.float64, device=device)
    check_scores(student, q, k)
    check_grads(student, "attention_scores", ref.attention_scores, [q, k], [0, 1], rng,
                what="attention_scores(q, k)", names=["q", "k"])


def test_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        q, k = qk(rng, "half", dtype=dtype, device=device)
        check_scores(student, q, k, what=f"attention_scores(q, k) in {dtype_text(dtype)}")
