"""Exercise 6 — Multi-head attention: `split_heads(x, n_heads)`, `merge_heads(x)` and
`MultiHeadAttention(d_model, n_heads, bias=True)` with `qkv` and `out` Linear layers."""

import pytest
import torch

import lumen_ref as ref
from grader.grading.compare import Mismatch, check_close, check_tensor, dtype_text, shape_text
from grader.grading.testkit import (
    KEPT_FROM_A_CALL,
    Made,
    as64,
    call_text,
    cases,
    check_call,
    check_device_kept,
    check_forward,
    check_fully_masked_queries,
    check_grads,
    check_inputs_kept,
    check_module_gradients,
    check_parameters,
    dims,
    load_module,
    per_head_mask,
    randn,
    reference_module,
)
from grader.sandbox.judge import StudentError

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

# x (B, L, d_model) with n_heads heads of d_head = d_model / n_heads; tests/catalog/test_sizes.py holds every
# case to the rule.
SIZES = {
    "split_values": dict(B=2, L=5, d_model=12, n_heads=3, d_head=4),
    "split_shapes[d_head=6]": dict(B=2, L=4, d_model=30, n_heads=5, d_head=6),
    "split_shapes[L=1]": dict(B=1, L=1, d_model=12, n_heads=3, d_head=4, edge="one token"),
    "split_shapes[d_head=1]": dict(B=3, L=2, d_model=4, n_heads=4, d_head=1, edge="d_head = 1: one number per head"),
    "merge_values": dict(B=2, n_heads=3, L=5, d_head=4),
    "merge_shapes[d_head=6]": dict(B=2, n_heads=5, L=4, d_head=6),
    "merge_shapes[L=1]": dict(B=1, n_heads=3, L=1, d_head=4, edge="one token"),
    "merge_shapes[d_head=1]": dict(B=3, n_heads=4, L=2, d_head=1, edge="d_head = 1: one number per head"),
    "merge_undoes_split": dict(B=2, L=3, d_model=30, n_heads=5, d_head=6),
    "split_gradients": dict(B=2, L=5, d_model=12, n_heads=3, d_head=4),
    "merge_gradients": dict(B=2, n_heads=3, L=4, d_head=5),
    "module": dict(B=2, L=5, d_model=12, n_heads=3, d_head=4),
    "module_shapes[d_head=6]": dict(B=2, L=4, d_model=30, n_heads=5, d_head=6),
    "module_shapes[L=1]": dict(B=1, L=1, d_model=12, n_heads=3, d_head=4, edge="one token"),
    "module_shapes[d_head=1]": dict(B=3, L=3, d_model=8, n_heads=8, d_head=1, edge="d_head = 1: one number per head"),
    "module_shapes[one-head]": dict(B=1, L=6, d_model=8, n_heads=1, d_head=8, edge="one head: plain attention"),
    "module_shapes[no-bias]": dict(B=2, L=5, d_model=12, n_heads=4, d_head=3),
    "no_peeking": dict(B=2, L=6, d_model=12, n_heads=3, d_head=4),
    "explicit_mask": dict(B=2, L=5, d_model=12, n_heads=3, d_head=4, lengths=[4, 2]),
    "inputs": dict(B=2, L=5, d_model=12, n_heads=3, d_head=4, lengths=[4, 2]),
}

# what check_parameters says about the chapter's layers
CHECKS = {
    "layers": "the chapter's module has exactly self.qkv = nn.Linear(d_model, 3 * d_model) (W_Q | W_K | W_V) "
              "and self.out = nn.Linear(d_model, d_model) (W_O)",
    "bias": "bias=False must reach both Linear layers: nn.Linear(..., bias=bias)",
    "formulas": {"qkv.weight": "(3 * d_model, d_model): qkv holds W_Q, W_K, W_V side by side",
                 "qkv.bias": "(3 * d_model,)", "out.weight": "(d_model, d_model): out is W_O",
                 "out.bias": "(d_model,)"},
}


# -- split_heads and merge_heads --------------------------------------------------------------


def _check_split(student, x, n_heads):
    check_call(student, "split_heads", x, n_heads, ref=ref.split_heads, like=x,
               what=f"split_heads(x of shape {shape_text(x.shape)}, {n_heads})")


def _check_merge(student, x):
    check_call(student, "merge_heads", x, ref=ref.merge_heads, like=x,
               what=f"merge_heads(x of shape {shape_text(x.shape)})")


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_split_heads_values(student, rng, device, dtype):
    size = SIZES["split_values"]
    _check_split(student, randn(rng, *dims(size, "B", "L", "d_model"), dtype=dtype, device=device), size["n_heads"])


@pytest.mark.parametrize("case", cases(SIZES, "split_shapes"))
def test_split_heads_shapes(student, rng, case):
    size = SIZES[f"split_shapes[{case}]"]
    _check_split(student, randn(rng, *dims(size, "B", "L", "d_model")), size["n_heads"])


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_merge_heads_values(student, rng, device, dtype):
    _check_merge(student, randn(rng, *dims(SIZES["merge_values"], "B", "n_heads", "L", "d_head"), dtype=dtype,
                                device=device))


@pytest.mark.parametrize("case", cases(SIZES, "merge_shapes"))
def test_merge_heads_shapes(student, rng, case):
    _check_merge(student, randn(rng, *dims(SIZES[f"merge_shapes[{case}]"], "B", "n_heads", "L", "d_head")))


@pytest.mark.needs_values("test_split_heads_values", "test_merge_heads_values")  # not two identities: round 57's a04
def test_merge_undoes_split(student, rng):
    size = SIZES["merge_undoes_split"]
    x = randn(rng, *dims(size, "B", "L", "d_model"))
    heads = student.split_heads(x, size["n_heads"])
    check_close(student.merge_heads(heads), as64(x),
                what=f"merge_heads(split_heads(x, {size['n_heads']})), which should be x")


def test_split_merge_gradients(student, rng, device):
    size = SIZES["split_gradients"]
    x = randn(rng, *dims(size, "B", "L", "d_model"), dtype=torch.float64, device=device)
    check_grads(student, "split_heads", ref.split_heads, [x, size["n_heads"]], [0], rng,
                what=f"split_heads(x, {size['n_heads']})", names=["x"])
    y = randn(rng, *dims(SIZES["merge_gradients"], "B", "n_heads", "L", "d_head"), dtype=torch.float64, device=device)
    check_grads(student, "merge_heads", ref.merge_heads, [y], [0], rng, what="merge_heads(x)", names=["x"])


# -- MultiHeadAttention -----------------------------------------------------------------------


def _reference(rng, name, bias=True):
    """The chapter's module of the SIZES case `name` in float64, with the test's own parameters."""
    return reference_module(rng, ref.MultiHeadAttention, SIZES[name]["d_model"], SIZES[name]["n_heads"], bias=bias)


def _x(rng, name, **options):
    """x (B, L, d_model) of the SIZES case `name` (options: randn's)."""
    return randn(rng, *dims(SIZES[name], "B", "L", "d_model"), **options)


def _load(student, reference, *, device="cpu", dtype=torch.float32):
    """The student's module holding the reference's parameters, on `device` in `dtype`; (module, its name)."""
    options = {} if reference.qkv.bias is not None else {"bias": False}
    return load_module(student, "MultiHeadAttention", reference, reference.qkv.in_features, reference.n_heads,
                       dtype=dtype, device=device, checks=CHECKS, **options)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_constructor_parameters(student, bias):
    options = {} if bias else {"bias": False}
    for d_model, n_heads in (dims(SIZES[name], "d_model", "n_heads") for name in ("module", "module_shapes[d_head=6]")):
        module = student.MultiHeadAttention(d_model, n_heads, **options)
        check_parameters(module.state_dict(), ref.MultiHeadAttention(d_model, n_heads, bias=bias), exact=True,
                         what=call_text("MultiHeadAttention", (d_model, n_heads), options),
                         made=Made("MultiHeadAttention", (d_model, n_heads), options), **CHECKS)


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_forward_values(student, rng, device, dtype):
    reference = _reference(rng, "module")
    module, what = _load(student, reference, device=device, dtype=dtype)
    x = _x(rng, "module", dtype=dtype, device=device)
    check_forward(module, reference, x, what=f"{what}(x)")


@pytest.mark.parametrize("case", cases(SIZES, "module_shapes"))
def test_forward_shapes(student, rng, case):
    reference = _reference(rng, f"module_shapes[{case}]", bias=case != "no-bias")
    module, what = _load(student, reference)
    x = _x(rng, f"module_shapes[{case}]")
    check_forward(module, reference, x, what=f"{what}(x) on x of shape {shape_text(x.shape)}")


@pytest.mark.needs_values("test_forward_values")
@pytest.mark.points(2)
def test_no_peeking_at_the_future(student, rng, device):
    module, what = _load(student, _reference(rng, "no_peeking"), device=device)
    x = _x(rng, "no_peeking", device=device)
    later = x.clone()
    later[:, 4:] = randn(rng, x.shape[0], x.shape[1] - 4, x.shape[2], device=device)  # change tokens 4 and 5 only
    before = module(x)
    call = module.last_call()
    after = module(later)
    check_tensor(before, what=f"{what}(x)", shape=x.shape)
    changed = ~torch.isclose(after[:, :4], before[:, :4], rtol=1e-4, atol=1e-5)
    if changed.any():
        position = int(changed.nonzero()[0][1])
        raise Mismatch(f"changing tokens 4 and 5 changed the output at position {position}: token i may only "
                       "read tokens 0..i, so with mask=None attend with causal_mask(L), and keep each token's "
                       "numbers together in split_heads and merge_heads", call=call)


def test_one_module_at_several_lengths(student, rng):
    """One module serves any length: called at L, then at a longer and a shorter one, each answer is
    the reference's (nothing made for one call's length, such as its causal mask, is kept for the next)."""
    reference = _reference(rng, "module")
    module, what = _load(student, reference)
    B, L, d_model = dims(SIZES["module"], "B", "L", "d_model")
    for length in (L, L + 2, L - 2):
        x = randn(rng, B, length, d_model)
        try:
            check_forward(module, reference, x, what=f"{what}(x) on x of length {length}, the same module called at "
                                                     f"{L} tokens first")
        except (Mismatch, StudentError):
            if length == L or not _right(lambda: check_forward(_load(student, reference)[0], reference, x, what=what)):
                raise
            raise Mismatch(f"{what}(x) on x of length {length} goes wrong after a call at {L} tokens, though a new "
                           f"module gets it right: your module keeps something made for an earlier call's length (a "
                           "causal mask?) and uses it again; make what depends on L in forward, from x",
                           cause=KEPT_FROM_A_CALL) from None


def _right(check):
    """Whether `check` passes."""
    try:
        check()
    except (Mismatch, StudentError):
        return False
    return True


@pytest.mark.parametrize("case", ["all-true", "padding"])
def test_explicit_mask(student, rng, device, case):
    size = SIZES["explicit_mask"]
    reference = _reference(rng, "explicit_mask")
    module, what = _load(student, reference, device=device)
    x = _x(rng, "explicit_mask", device=device)
    L = size["L"]
    if case == "all-true":
        mask, text = torch.ones(L, L, dtype=torch.bool, device=device), "an all-True (L, L) mask"
    else:
        lengths = torch.tensor(size["lengths"], device=device)
        mask, text = ref.padding_mask(lengths, L)[:, None], "a (B, 1, 1, L) padding mask"
    got = module(x, mask)
    if case == "all-true":
        _check_not_causal(got, reference, x, what=f"{what}(x, mask) with {text}", call=module.last_call())
    check_forward(module, reference, x, mask, what=f"{what}(x, mask) with {text}", got=got)
    if case == "padding":  # any mask that broadcasts to the scores: one of every head's own, (B, H, L, L)
        mask = per_head_mask(rng, mask, size["n_heads"])
        check_forward(module, reference, x, mask, what=f"{what}(x, mask) with a mask of each head's own, (B, H, L, L)")


def _check_not_causal(got, reference, x, *, what, call):
    """An all-True mask lets every query read every key: an output that is the causal one (whatever
    else the code does with the mask: ignores it, combines it with the causal one, adds it to the
    scores as Hugging Face's GPT-2 does) breaks the docstring's "A given mask replaces the causal one"."""
    with torch.no_grad():
        causal = reference(*as64((x,)))
    if not isinstance(got, torch.Tensor) or got.shape != causal.shape:
        return
    try:
        check_close(got, causal, what=what)
    except Mismatch:
        return
    raise Mismatch(f"{what} is what causal attention gives: with an all-True mask every query may read every key, "
                   "later ones too, and yours reads only the earlier ones. The docstring: a given mask replaces the "
                   "causal one (it is not combined with it), so attend with the mask as it is given and make the "
                   "causal mask only when mask is None", call=call)


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    reference = _reference(rng, "module")
    module, what = _load(student, reference, device=device, dtype=torch.float64)
    x = _x(rng, "module", dtype=torch.float64, device=device)
    upstream = _x(rng, "module", dtype=torch.float64, device=device)
    check_module_gradients(module, reference, x, upstream, what=f"{what}(x)")


@pytest.mark.needs_values("test_forward_values")
def test_inputs_not_modified(student, rng, device):
    size = SIZES["inputs"]
    x = _x(rng, "inputs", device=device)
    check_inputs_kept(student, "split_heads", x, size["n_heads"], names=["x"])
    heads = randn(rng, *dims(size, "B", "n_heads", "L", "d_head"), device=device)
    check_inputs_kept(student, "merge_heads", heads, names=["x"])
    module, _ = _load(student, _reference(rng, "inputs"), device=device)
    mask = ref.padding_mask(torch.tensor(size["lengths"], device=device), size["L"])[:, None]
    check_inputs_kept(module, "__call__", x, mask, names=["x", "mask"])


@pytest.mark.points(2)
def test_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        size = SIZES["module"]
        _check_split(student, _x(rng, "module", dtype=dtype, device=device), size["n_heads"])
        _check_merge(student, randn(rng, *dims(size, "B", "n_heads", "L", "d_head"), dtype=dtype, device=device))
        reference = _reference(rng, "module")
        module, what = _load(student, reference, device=device, dtype=dtype)
        x = _x(rng, "module", dtype=dtype, device=device, scale=0.5)  # small: bf16 rounds every step
        check_forward(module, reference, x, what=f"{what}(x) in {dtype_text(dtype)}")


# -- a query that may see no key (as exercise 7's test_gqa_fully_masked_rows) -----------------------


@pytest.mark.hidden
def test_fully_masked_rows(student, rng):
    reference = _reference(rng, "explicit_mask")
    module, what = _load(student, reference, dtype=torch.float64)
    x = _x(rng, "explicit_mask", dtype=torch.float64)
    check_fully_masked_queries(module, reference, x, what=what,
                               nan_hint="a query whose every key is masked must read nothing (zeros from attention, "
                                        "so out's bias after W_O), not NaN: use the given "
                                        "scaled_dot_product_attention, which zeroes such rows")


# -- devices: the causal mask is made on x's device ----------------------------------------------


@pytest.mark.needs_values("test_forward_values")
def test_forward_stays_on_the_inputs_device(student, rng, device):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with x and the module on a stand-in device."""
    module, what = _load(student, _reference(rng, "module"), device=device)
    check_device_kept(module, "__call__", _x(rng, "module"), device=device, what=f"{what}(x) with mask=None")
