"""Exercise 1 — Project: `project(x, w_q, w_k, w_v)` and `fused_project(x, w_qkv)`."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import dtype_text, shape_text
from grader.testkit import check_call, check_grads, check_inputs_kept, product_conditioning, randn

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]
QKV = ("q", "k", "v")

# The chapter's napkin example, Step 1: "The cat sat down" at d = 3, where "sat" = [0, 1, 1] asks the
# question q = [1, 2, 0]. The chapter does not print its matrices ("you can invent any W_K, W_V and
# embeddings that produce them"), so these are invented to give its numbers: rows 1 and 2 of W_Q add
# up to [1, 2, 0], and the keys come out as Step 2's, with "cat"'s key [1, 2, 0] and scores 0, 5, 1, 2.
NAPKIN_X = [[0.0, 0.0, 1.0],  # The
            [2.0, 1.0, 0.0],  # cat
            [0.0, 1.0, 1.0],  # sat
            [1.0, 0.0, 0.0]]  # down
NAPKIN_W_Q = [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]
NAPKIN_W_K = [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
NAPKIN_W_V = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]


def check_answer(student, name, *args, what):
    """The student's `name(*args)` against lumen_ref's in float64: (q, k, v), in x's dtype and device."""
    return check_call(student, name, *args, ref=getattr(ref, name), what=what, like=args[0], labels=QKV,
                      magnitude=product_conditioning(getattr(ref, name)))


def weights(rng, d_model, d_k, d_v, **options):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_v)."""
    return tuple(randn(rng, d_model, width, **options) for width in (d_k, d_k, d_v))


# -- project(x, w_q, w_k, w_v) ----------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_project_values(student, rng, device, dtype):
    x = randn(rng, 2, 5, 6, dtype=dtype, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 3, dtype=dtype, device=device)  # d_v != d_k
    check_answer(student, "project", x, w_q, w_k, w_v, what="project(x, w_q, w_k, w_v)")


@pytest.mark.parametrize("x_shape, d_k, d_v", [
    ((7, 6), 4, 2),
    ((3, 1, 8), 5, 7),
    ((2, 3, 4, 6), 3, 5),
], ids=["no-batch", "L=1", "extra-batch-dims"])
def test_project_shapes(student, rng, x_shape, d_k, d_v):
    x = randn(rng, *x_shape)
    w_q, w_k, w_v = weights(rng, x_shape[-1], d_k, d_v)
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what=f"project(x, w_q, w_k, w_v) with x {shape_text(x_shape)}")


@pytest.mark.points(2)
def test_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_q, w_k, w_v = torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what="project on the chapter's 'The cat sat down' (Step 1: 'sat' = [0, 1, 1] asks q = [1, 2, 0])")


@pytest.mark.hidden
def test_project_identity_zero_and_huge_weights(student, rng):
    x = randn(rng, 2, 3, 4)
    w_q, w_k, w_v = torch.eye(4), torch.zeros(4, 4), randn(rng, 4, 6, scale=1e4)
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what="project(x, I, 0, 1e4·W) (q must be x itself, k all zeros)")


def test_project_inputs_not_modified(student, rng, device):
    x = randn(rng, 2, 4, 6, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 5, device=device)
    check_inputs_kept(student, "project", x, w_q, w_k, w_v, names=["x", "w_q", "w_k", "w_v"])


@pytest.mark.points(2)
def test_project_gradients(student, rng, device):
    x = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 3, dtype=torch.float64, device=device)
    args = [x, w_q, w_k, w_v]
    check_answer(student, "project", *args, what="project(x, w_q, w_k, w_v)")
    check_grads(student, "project", ref.project, args, [0, 1, 2, 3], rng,
                what="project(x, w_q, w_k, w_v)", names=["x", "w_q", "w_k", "w_v"])


@pytest.mark.cuda  # float16 and bfloat16 are checked on CUDA only
def test_project_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        x = randn(rng, 2, 5, 8, dtype=dtype, device=device)
        w_q, w_k, w_v = weights(rng, 8, 4, 6, dtype=dtype, device=device, scale=0.5)
        check_answer(student, "project", x, w_q, w_k, w_v, what=f"project(x, w_q, w_k, w_v) in {dtype_text(dtype)}")


# -- fused_project(x, w_qkv) ------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_fused_project_values(student, rng, device, dtype):
    x = randn(rng, 2, 5, 6, dtype=dtype, device=device)
    w_qkv = randn(rng, 6, 12, dtype=dtype, device=device)  # d = 4, not d_model
    check_answer(student, "fused_project", x, w_qkv, what="fused_project(x, w_qkv)")


@pytest.mark.parametrize("x_shape, d", [
    ((7, 6), 5),
    ((3, 1, 8), 5),
    ((2, 4, 6), 6),
    ((2, 3, 6, 4), 3),
], ids=["no-batch", "L=1", "d=d_model", "extra-batch-dims"])
def test_fused_project_shapes(student, rng, x_shape, d):
    x = randn(rng, *x_shape)
    w_qkv = randn(rng, x_shape[-1], 3 * d)
    check_answer(student, "fused_project", x, w_qkv,
                 what=f"fused_project(x, w_qkv) with x {shape_text(x_shape)}, w_qkv {shape_text(w_qkv.shape)}")


@pytest.mark.hidden
def test_fused_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_qkv = torch.cat([torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)], dim=-1)
    check_answer(student, "fused_project", x, w_qkv,
                 what="fused_project on 'The cat sat down' with w_qkv = [W_Q | W_K | W_V] (3, 9)")


def test_fused_project_inputs_not_modified(student, rng, device):
    x, w_qkv = randn(rng, 2, 4, 6, device=device), randn(rng, 6, 15, device=device)
    check_inputs_kept(student, "fused_project", x, w_qkv, names=["x", "w_qkv"])


@pytest.mark.points(2)
def test_fused_project_gradients(student, rng, device):
    x = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    w_qkv = randn(rng, 6, 12, dtype=torch.float64, device=device)
    check_answer(student, "fused_project", x, w_qkv, what="fused_project(x, w_qkv)")
    check_grads(student, "fused_project", ref.fused_project, [x, w_qkv], [0, 1], rng,
                what="fused_project(x, w_qkv)", names=["x", "w_qkv"])


@pytest.mark.cuda  # float16 and bfloat16 are checked on CUDA only
def test_fused_project_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        x = randn(rng, 2, 5, 8, dtype=dtype, device=device)
        w_qkv = randn(rng, 8, 12, dtype=dtype, device=device, scale=0.5)
        check_answer(student, "fused_project", x, w_qkv, what=f"fused_project(x, w_qkv) in {dtype_text(dtype)}")
