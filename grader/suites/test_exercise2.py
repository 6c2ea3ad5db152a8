"""Exercise 2 — Score every key: `attention_scores(q, k)`, the raw S = Q Kᵀ."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import dtype_text, shape_text
from grader.testkit import check_call, check_grads, check_inputs_kept, product_conditioning, randn

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

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
    check_inputs_kept(student, "attention_scores", q, k, names=["q", "k"])


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    q = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    k = randn(rng, 2, 3, 6, dtype=torch.float64, device=device)
    check_scores(student, q, k)
    check_grads(student, "attention_scores", ref.attention_scores, [q, k], [0, 1], rng,
                what="attention_scores(q, k)", names=["q", "k"])


@pytest.mark.cuda  # float16 and bfloat16 are checked on CUDA only
def test_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        q = randn(rng, 2, 3, 5, 8, dtype=dtype, device=device)
        k = randn(rng, 2, 3, 7, 8, dtype=dtype, device=device)
        check_scores(student, q, k, what=f"attention_scores(q, k) in {dtype_text(dtype)}")
