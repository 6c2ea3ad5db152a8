"""Exercise 1 — Project: `project(x, w_q, w_k, w_v)` and `fused_project(x, w_qkv)`."""

import pytest
import torch

import lumen_ref as ref
from grader.catalog.exercise1_projection.misconceptions import SEVERAL_PRODUCTS
from grader.grading.compare import Mismatch, dtype_text, shape_text
from grader.grading.testkit import (cases, check_call, check_device_kept, check_grads, check_inputs_kept, dims,
                                    product_conditioning, randn, watched_calls)

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]
QKV = ("q", "k", "v")

# The sizes of every test (tests/catalog/test_sizes.py holds them to the rule that keeps mistakes apart):
# x (B..., L, d_model), W_Q and W_K (d_model, d_k), W_V (d_model, d_v); fused: w_qkv (d_model, 3d).
SIZES = {
    "project_values": dict(B=2, L=5, d_model=6, d_k=4, d_v=3),
    "project_shapes[no-batch]": dict(L=7, d_model=6, d_k=4, d_v=2),
    "project_shapes[L=1]": dict(B=3, L=1, d_model=8, d_k=5, d_v=7, edge="one token"),
    "project_shapes[extra-batch-dims]": dict(B=(2, 7), L=4, d_model=6, d_k=3, d_v=5),
    "project_huge": dict(B=2, L=3, d_model=4, d_k=4, d_v=6, edge="W_Q = I is square"),
    "project_inputs": dict(B=2, L=4, d_model=6, d_k=3, d_v=5),
    "project_gradients": dict(B=2, L=5, d_model=6, d_k=4, d_v=3),
    "project_half": dict(B=2, L=5, d_model=8, d_k=4, d_v=6),
    "fused_values": dict(B=2, L=5, d_model=6, d=4),
    "fused_shapes[no-batch]": dict(L=7, d_model=6, d=5),
    "fused_shapes[L=1]": dict(B=3, L=1, d_model=8, d=5, edge="one token"),
    "fused_shapes[d=d_model]": dict(B=2, L=4, d_model=6, d=6, edge="d = d_model, as in multi-head attention"),
    "fused_shapes[extra-batch-dims]": dict(B=(2, 5), L=6, d_model=4, d=3),
    "fused_inputs": dict(B=2, L=4, d_model=6, d=5),
    "fused_gradients": dict(B=2, L=5, d_model=6, d=4),
    "fused_half": dict(B=2, L=5, d_model=8, d=4),
}

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


def weights(rng, size, **options):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_v) of a SIZES case."""
    return tuple(randn(rng, size["d_model"], size[width], **options) for width in ("d_k", "d_k", "d_v"))


def inputs(rng, name, **options):
    """x and W_Q, W_K, W_V of the SIZES case `name`."""
    size = SIZES[name]
    return randn(rng, *dims(size, "B", "L", "d_model"), **options), *weights(rng, size, **options)


def fused_inputs(rng, name, **options):
    """x and w_qkv of the SIZES case `name`."""
    size = SIZES[name]
    x = randn(rng, *dims(size, "B", "L", "d_model"), **options)
    return x, randn(rng, size["d_model"], 3 * size["d"], **options)


# -- project(x, w_q, w_k, w_v) ----------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_project_values(student, rng, device, dtype):
    x, w_q, w_k, w_v = inputs(rng, "project_values", dtype=dtype, device=device)
    check_answer(student, "project", x, w_q, w_k, w_v, what="project(x, w_q, w_k, w_v)")


@pytest.mark.parametrize("case", cases(SIZES, "project_shapes"))
def test_project_shapes(student, rng, case):
    x, w_q, w_k, w_v = inputs(rng, f"project_shapes[{case}]")
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what=f"project(x, w_q, w_k, w_v) with x {shape_text(x.shape)}")


@pytest.mark.points(2)
def test_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_q, w_k, w_v = torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what="project on the chapter's 'The cat sat down' (Step 1: 'sat' = [0, 1, 1] asks q = [1, 2, 0])")


@pytest.mark.hidden
def test_project_identity_zero_and_huge_weights(student, rng):
    size = SIZES["project_huge"]
    x = randn(rng, *dims(size, "B", "L", "d_model"))
    w_q, w_k = torch.eye(size["d_model"]), torch.zeros(size["d_model"], size["d_k"])
    w_v = randn(rng, size["d_model"], size["d_v"], scale=1e4)
    check_answer(student, "project", x, w_q, w_k, w_v,
                 what="project(x, I, 0, 1e4·W) (q must be x itself, k all zeros)")


@pytest.mark.needs_values("test_project_values")
def test_project_inputs_not_modified(student, rng, device):
    x, w_q, w_k, w_v = inputs(rng, "project_inputs", device=device)
    for x in (x, x[0]):  # batched, and one sequence alone: an unsqueeze_ for the batch dim changes the caller's x
        check_inputs_kept(student, "project", x, w_q, w_k, w_v, names=["x", "w_q", "w_k", "w_v"])


@pytest.mark.points(2)
def test_project_gradients(student, rng, device):
    args = list(inputs(rng, "project_gradients", dtype=torch.float64, device=device))
    check_answer(student, "project", *args, what="project(x, w_q, w_k, w_v)")
    check_grads(student, "project", ref.project, args, [0, 1, 2, 3], rng,
                what="project(x, w_q, w_k, w_v)", names=["x", "w_q", "w_k", "w_v"])


def test_project_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        x, w_q, w_k, w_v = inputs(rng, "project_half", dtype=dtype, device=device, scale=0.5)
        check_answer(student, "project", x, w_q, w_k, w_v, what=f"project(x, w_q, w_k, w_v) in {dtype_text(dtype)}")


# -- fused_project(x, w_qkv) ------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_fused_project_values(student, rng, device, dtype):
    x, w_qkv = fused_inputs(rng, "fused_values", dtype=dtype, device=device)
    check_answer(student, "fused_project", x, w_qkv, what="fused_project(x, w_qkv)")


@pytest.mark.parametrize("case", cases(SIZES, "fused_shapes"))
def test_fused_project_shapes(student, rng, case):
    x, w_qkv = fused_inputs(rng, f"fused_shapes[{case}]")
    check_answer(student, "fused_project", x, w_qkv,
                 what=f"fused_project(x, w_qkv) with x {shape_text(x.shape)}, w_qkv {shape_text(w_qkv.shape)}")


@pytest.mark.hidden
def test_fused_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_qkv = torch.cat([torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)], dim=-1)
    check_answer(student, "fused_project", x, w_qkv,
                 what="fused_project on 'The cat sat down' with w_qkv = [W_Q | W_K | W_V] (3, 9)")


@pytest.mark.needs_values("test_fused_project_values")
def test_fused_project_inputs_not_modified(student, rng, device):
    x, w_qkv = fused_inputs(rng, "fused_inputs", device=device)
    for x in (x, x[0]):  # batched, and one sequence alone
        check_inputs_kept(student, "fused_project", x, w_qkv, names=["x", "w_qkv"])


@pytest.mark.needs_values(project=("test_project_values",),
                          fused_project=("test_fused_project_values",))
@pytest.mark.parametrize("call", ["project", "fused_project"])
def test_projections_stay_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU (a bias of zeros, a buffer): on CUDA itself, and on the CPU with the
    inputs on a stand-in device."""
    args = inputs(rng, "project_inputs") if call == "project" else fused_inputs(rng, "fused_inputs")
    check_device_kept(student, call, *args, device=device, what=f"{call}(x, ...)")


@pytest.mark.hidden
@pytest.mark.needs_values(project=("test_project_values",),
                          fused_project=("test_fused_project_values",))
@pytest.mark.parametrize("call", ["project", "fused_project"])
def test_projections_take_a_transposed_batch(student, rng, device, call):
    """x as a caller may hold it: a (L, B, d_model) batch transposed to (B, L, d_model), whose memory is
    not in row order (`x.view` refuses it; `@` takes any layout)."""
    x, *w = inputs(rng, "project_values", device=device) if call == "project" else fused_inputs(rng, "fused_values",
                                                                                                 device=device)
    x = x.transpose(0, 1).contiguous().transpose(0, 1)  # (B, L, d_model), laid out as (L, B, d_model)
    check_answer(student, call, x, *w, what=f"{call}(x, ...) with x = a (L, B, d_model) tensor transposed to "
                                            f"{shape_text(x.shape)}")


@pytest.mark.points(2)
def test_fused_project_gradients(student, rng, device):
    x, w_qkv = fused_inputs(rng, "fused_gradients", dtype=torch.float64, device=device)
    check_answer(student, "fused_project", x, w_qkv, what="fused_project(x, w_qkv)")
    check_grads(student, "fused_project", ref.fused_project, [x, w_qkv], [0, 1], rng,
                what="fused_project(x, w_qkv)", names=["x", "w_qkv"])


def test_fused_project_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        x, w_qkv = fused_inputs(rng, "fused_half", dtype=dtype, device=device, scale=0.5)
        check_answer(student, "fused_project", x, w_qkv, what=f"fused_project(x, w_qkv) in {dtype_text(dtype)}")


@pytest.mark.needs_values("test_fused_project_values")
def test_fused_project_is_one_matrix_product(student, rng):
    """The docstring's rule, which no value shows: the three projections come from ONE product
    x @ w_qkv (counted by the grader's probe: aten's matrix products, and the torch operations that compute
    from x's and w_qkv's values together, whatever their names; not time), in this call and in
    every other the suite made (it comes last): fused_project is `watched`, so that this call is
    measured as every other is and code cannot behave only while it is measured (round 28's a03)."""
    x, w_qkv = fused_inputs(rng, "fused_values")
    student.run("fused_project", x, w_qkv)
    calls = watched_calls(student, "fused_project", what="fused_project's matrix products")
    # products of any data (a copy made through Python too), and reductions of the inputs' (a product is a
    # multiplication and a sum: round 32's a01)
    most = max(call.measured["every_product"] + call.measured["reductions"] for call in calls)
    if most > 1:
        raise Mismatch(f"fused_project(x, w_qkv) ran {most} matrix products: the point of the fused "
                       "projection is that one product x @ w_qkv makes Q, K and V together, cut into three "
                       "afterwards; slicing w_qkv first and multiplying each part is three products again",
                       cause=SEVERAL_PRODUCTS, call={"target": "fused_project", "args": (x, w_qkv), "kwargs": {},
                                                     "check": "products", "at_most": 1, "got": most})
    # and whatever computes from x's values and w_qkv's together, whatever its name (elementwise terms summed
    # without a reduction: round 35's a01, a02, a04)
    combining = max(call.measured["combining"] for call in calls)
    if combining > 1:
        raise Mismatch(f"fused_project(x, w_qkv) computed from x's and w_qkv's values together in {combining} torch "
                       "operations, where the one product x @ w_qkv is one: the point of the fused projection is that "
                       "one product makes Q, K and V together, cut into three afterwards; products made another way "
                       "(elementwise terms and sums) or slicing w_qkv first are several products again",
                       cause=SEVERAL_PRODUCTS)
    if any(origins != XW for call in calls for origins in call.measured["returned"]):
        raise Mismatch("fused_project(x, w_qkv) returned a tensor that the grader's probe did not see computed from "
                       "x's and w_qkv's values (data handed out of torch and made a tensor again, as through its "
                       "printed text: round 37's a01): Q, K and V are the one product x @ w_qkv, cut into three, "
                       "computed with torch's operations on the tensors themselves", cause=SEVERAL_PRODUCTS)
    if min(call.measured["products"] for call in calls) == 0:  # summed by hand (round 11's a08 did it three times)
        raise Mismatch("fused_project(x, w_qkv) ran no matrix product: the projection is one matrix product, "
                       "x @ w_qkv (torch.matmul, @, einsum or nn.functional.linear), cut into Q, K and V afterwards")


XW = 0b11  # the probe's bits of data computed from x's values and w_qkv's (its first two arguments)
