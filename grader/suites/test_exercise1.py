"""Exercise 1 — Project: `project(x, w_q, w_k, w_v)` and `fused_project(x, w_qkv)`."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, check_close, check_tensor, check_unchanged, describe, shape_text
from grader.testkit import as64, check_grads, randn

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


# -- checking, with the chapter's explanation of the classic mistakes --------------------------------


def check_answer(student, name, *args, ref_fn, what, ideas=()):
    """Call the student's `name(*args)` and check its (q, k, v) against `ref_fn` in float64.

    As `testkit.check_call` (a failure carries the call, for diagnoses), plus: each output is named
    q, k or v, its dtype and device must be x's, and a wrong answer that one of `ideas` recognises
    gets that idea's sentence. An idea is fn(got, expected, args64) -> a sentence, or None.
    """
    dtype, device = args[0].dtype, args[0].device.type
    got = student.run(name, *args)["value"]
    args64 = as64(args)
    expected = ref_fn(*args64)
    try:
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise Mismatch(f"{what} returned {describe(got)}, expected a tuple of 3 tensors (q, k, v)")
        for item, label in zip(got, QKV):
            check_tensor(item, what=f"{label} from {what}", dtype=dtype, device=device)
        for item, want, label in zip(got, expected, QKV):
            check_close(item, want, what=f"{label} from {what}")
    except Mismatch as mismatch:
        mismatch.details["call"] = {"target": name, "args": args, "kwargs": {}, "got": got}
        explanation = recognise(ideas, got, expected, args64)
        if explanation:
            raise Mismatch(f"{what}: {explanation}", **mismatch.details) from None
        raise
    return got


def recognise(ideas, got, expected, args64):
    """The first idea's sentence for this wrong answer; an idea that trips over an odd answer is no match."""
    for idea in ideas:
        try:
            explanation = idea(got, expected, args64)
        except Exception:  # noqa: BLE001 - a diagnosis must never turn a wrong answer into a grader error
            explanation = None
        if explanation:
            return explanation
    return None


def same(got, value):
    """got holds value's numbers (float64 CPU), within a loose tolerance: a mistake, recognised."""
    if isinstance(value, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(value) and all(map(same, got, value))
    if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(value.shape):
        return False
    return torch.allclose(got.detach().to("cpu", torch.float64), value, rtol=1e-2, atol=1e-3)


def transposed_weights(got, expected, args64):
    x, *weights = args64
    try:
        mistake = tuple(x @ w.transpose(-2, -1) for w in weights)
    except RuntimeError:  # not square: that mistake cannot even run here
        return None
    if same(got, mistake):
        return ("you computed x Wᵀ (nn.Linear's (out, in) layout, what F.linear does); here W is "
                "(d_model, d_k), so Q = X W_Q is simply x @ w_q")
    return None


def wrong_order(got, expected, args64):
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        return None
    order = []
    for item in got:
        matches = [label for label, want in zip(QKV, expected) if same(item, want)]
        if not matches:
            return None
        order.append(matches[0])
    if order != list(QKV):
        return f"you returned ({', '.join(order)}): return them in the order (q, k, v)"
    return None


def fused_wrong_order(got, expected, args64):
    explanation = wrong_order(got, expected, args64)
    if explanation:
        return (explanation + "; w_qkv is [W_Q | W_K | W_V] side by side: columns 0..d-1 make q, "
                "d..2d-1 make k, 2d..3d-1 make v")
    return None


def fused_wrong_cut(got, expected, args64):
    """Pieces of the wrong width (split(d_model) like the chapter's MHA), or cut along another axis."""
    x, w_qkv = args64
    d, d_model = w_qkv.size(-1) // 3, x.size(-1)
    if not isinstance(got, (tuple, list)) or not all(isinstance(item, torch.Tensor) for item in got):
        return None
    want = tuple(expected[0].shape)
    if len(got) == 3 and all(tuple(item.shape) == want for item in got):
        return None  # the pieces have the right shape: the numbers are wrong, not the cut
    shapes = ", ".join(shape_text(item.shape) for item in got)
    widths = {item.shape[-1] for item in got}
    not_d_model = f", not d_model = {d_model}" if d != d_model and d_model in widths else ""
    rule = (f"cut the last dim of x @ w_qkv (dim=-1) into three pieces of d = w_qkv.size(-1) // 3 = {d} "
            f"columns{not_d_model}: W_Q, W_K and W_V sit side by side")
    if all(item.shape[:-1] == expected[0].shape[:-1] for item in got):
        return f"you returned {len(got)} pieces {shapes}, expected three of {shape_text(want)}: {rule}"
    return (f"you returned {len(got)} pieces {shapes}, expected three of {shape_text(want)}: you cut the "
            f"wrong axis (with batch dims in front, dim=1 is not the features); {rule}")


def napkin_sat(got, expected, args64):
    """Last resort on the napkin example: say what "sat" asked."""
    try:
        sat = [round(float(value), 4) for value in got[0][2]]
    except (TypeError, IndexError, ValueError):
        return None
    if sat != [1.0, 2.0, 0.0]:
        return (f"'sat' = [0, 1, 1] should ask the question q = [1, 2, 0], yours asks {sat}: "
                "the query is the row vector times the matrix, x @ w_q")
    return None


PROJECT_IDEAS = (transposed_weights, wrong_order)
FUSED_IDEAS = (fused_wrong_cut, fused_wrong_order)


def weights(rng, d_model, d_k, d_v, **options):
    """W_Q, W_K (d_model, d_k) and W_V (d_model, d_v)."""
    return tuple(randn(rng, d_model, width, **options) for width in (d_k, d_k, d_v))


# -- project(x, w_q, w_k, w_v) ----------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_project_values(student, rng, device, dtype):
    x = randn(rng, 2, 5, 6, dtype=dtype, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 3, dtype=dtype, device=device)  # d_v != d_k
    check_answer(student, "project", x, w_q, w_k, w_v, ref_fn=ref.project,
                 what="project(x, w_q, w_k, w_v)", ideas=PROJECT_IDEAS)


@pytest.mark.parametrize("x_shape, d_k, d_v", [
    ((7, 6), 4, 2),
    ((3, 1, 8), 5, 7),
    ((2, 3, 4, 6), 3, 5),
], ids=["no-batch", "L=1", "extra-batch-dims"])
def test_project_shapes(student, rng, x_shape, d_k, d_v):
    x = randn(rng, *x_shape)
    w_q, w_k, w_v = weights(rng, x_shape[-1], d_k, d_v)
    check_answer(student, "project", x, w_q, w_k, w_v, ref_fn=ref.project,
                 what=f"project(x, w_q, w_k, w_v) with x {shape_text(x_shape)}", ideas=PROJECT_IDEAS)


@pytest.mark.points(2)
def test_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_q, w_k, w_v = torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)
    check_answer(student, "project", x, w_q, w_k, w_v, ref_fn=ref.project,
                 what="project on the chapter's 'The cat sat down' (Step 1)", ideas=PROJECT_IDEAS + (napkin_sat,))


@pytest.mark.hidden
def test_project_identity_zero_and_huge_weights(student, rng):
    x = randn(rng, 2, 3, 4)
    w_q, w_k, w_v = torch.eye(4), torch.zeros(4, 4), randn(rng, 4, 6, scale=1e4)
    check_answer(student, "project", x, w_q, w_k, w_v, ref_fn=ref.project,
                 what="project(x, I, 0, 1e4·W) (q must be x itself, k all zeros)", ideas=PROJECT_IDEAS)


def test_project_inputs_not_modified(student, rng, device):
    x = randn(rng, 2, 4, 6, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 5, device=device)
    reply = student.run("project", x, w_q, w_k, w_v, return_args=True)
    for before, after, name in zip([x, w_q, w_k, w_v], reply["args"], ["x", "w_q", "w_k", "w_v"]):
        check_unchanged(before, after, what=name)


@pytest.mark.points(2)
def test_project_gradients(student, rng, device):
    x = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    w_q, w_k, w_v = weights(rng, 6, 4, 3, dtype=torch.float64, device=device)
    args = [x, w_q, w_k, w_v]
    check_answer(student, "project", *args, ref_fn=ref.project, what="project(x, w_q, w_k, w_v)",
                 ideas=PROJECT_IDEAS)
    check_grads(student, "project", ref.project, args, [0, 1, 2, 3], rng,
                what="project(x, w_q, w_k, w_v)", names=["x", "w_q", "w_k", "w_v"])


def test_project_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("float16 and bfloat16 are checked on CUDA only")
    for dtype in HALF_DTYPES:
        x = randn(rng, 2, 5, 8, dtype=dtype, device=device)
        w_q, w_k, w_v = weights(rng, 8, 4, 6, dtype=dtype, device=device, scale=0.5)
        check_answer(student, "project", x, w_q, w_k, w_v, ref_fn=ref.project,
                     what=f"project(x, w_q, w_k, w_v) in {str(dtype).removeprefix('torch.')}",
                     ideas=PROJECT_IDEAS)


# -- fused_project(x, w_qkv) ------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_fused_project_values(student, rng, device, dtype):
    x = randn(rng, 2, 5, 6, dtype=dtype, device=device)
    w_qkv = randn(rng, 6, 12, dtype=dtype, device=device)  # d = 4, not d_model
    check_answer(student, "fused_project", x, w_qkv, ref_fn=ref.fused_project,
                 what="fused_project(x, w_qkv)", ideas=FUSED_IDEAS)


@pytest.mark.parametrize("x_shape, d", [
    ((7, 6), 5),
    ((3, 1, 8), 5),
    ((2, 4, 6), 6),
    ((2, 3, 6, 4), 3),
], ids=["no-batch", "L=1", "d=d_model", "extra-batch-dims"])
def test_fused_project_shapes(student, rng, x_shape, d):
    x = randn(rng, *x_shape)
    w_qkv = randn(rng, x_shape[-1], 3 * d)
    check_answer(student, "fused_project", x, w_qkv, ref_fn=ref.fused_project,
                 what=f"fused_project(x, w_qkv) with x {shape_text(x_shape)}, w_qkv {shape_text(w_qkv.shape)}",
                 ideas=FUSED_IDEAS)


@pytest.mark.hidden
def test_fused_project_napkin_example(student):
    x = torch.tensor(NAPKIN_X)
    w_qkv = torch.cat([torch.tensor(NAPKIN_W_Q), torch.tensor(NAPKIN_W_K), torch.tensor(NAPKIN_W_V)], dim=-1)
    check_answer(student, "fused_project", x, w_qkv, ref_fn=ref.fused_project,
                 what="fused_project on 'The cat sat down' with w_qkv = [W_Q | W_K | W_V] (3, 9)",
                 ideas=FUSED_IDEAS)


def test_fused_project_inputs_not_modified(student, rng, device):
    x, w_qkv = randn(rng, 2, 4, 6, device=device), randn(rng, 6, 15, device=device)
    reply = student.run("fused_project", x, w_qkv, return_args=True)
    check_unchanged(x, reply["args"][0], what="x")
    check_unchanged(w_qkv, reply["args"][1], what="w_qkv")


@pytest.mark.points(2)
def test_fused_project_gradients(student, rng, device):
    x = randn(rng, 2, 5, 6, dtype=torch.float64, device=device)
    w_qkv = randn(rng, 6, 12, dtype=torch.float64, device=device)
    check_answer(student, "fused_project", x, w_qkv, ref_fn=ref.fused_project,
                 what="fused_project(x, w_qkv)", ideas=FUSED_IDEAS)
    check_grads(student, "fused_project", ref.fused_project, [x, w_qkv], [0, 1], rng,
                what="fused_project(x, w_qkv)", names=["x", "w_qkv"])


def test_fused_project_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("float16 and bfloat16 are checked on CUDA only")
    for dtype in HALF_DTYPES:
        x = randn(rng, 2, 5, 8, dtype=dtype, device=device)
        w_qkv = randn(rng, 8, 12, dtype=dtype, device=device, scale=0.5)
        check_answer(student, "fused_project", x, w_qkv, ref_fn=ref.fused_project,
                     what=f"fused_project(x, w_qkv) in {str(dtype).removeprefix('torch.')}",
                     ideas=FUSED_IDEAS)
