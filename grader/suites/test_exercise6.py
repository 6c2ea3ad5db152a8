"""Exercise 6 — Multi-head attention: `split_heads(x, n_heads)`, `merge_heads(x)` and
`MultiHeadAttention(d_model, n_heads, bias=True)` with `qkv` and `out` Linear layers."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import Mismatch, check_close, check_tensor, dtype_text, shape_text
from grader.testkit import (
    as64,
    call_text,
    check_call,
    check_forward,
    check_grads,
    check_inputs_kept,
    check_module_gradients,
    check_parameters,
    load_module,
    randn,
    reference_module,
)

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]

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


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_split_heads_values(student, rng, device, dtype):
    _check_split(student, randn(rng, 2, 5, 12, dtype=dtype, device=device), 3)  # L = 5 != H = 3


@pytest.mark.parametrize("B,L,D,H", [(2, 4, 30, 5), (1, 1, 12, 3), (3, 2, 4, 4)],
                         ids=["d_head=6", "L=1", "d_head=1"])
def test_split_heads_shapes(student, rng, B, L, D, H):
    _check_split(student, randn(rng, B, L, D), H)


@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_merge_heads_values(student, rng, device, dtype):
    _check_merge(student, randn(rng, 2, 3, 5, 4, dtype=dtype, device=device))


@pytest.mark.parametrize("B,H,L,d_head", [(2, 5, 4, 6), (1, 3, 1, 4), (3, 4, 2, 1)],
                         ids=["d_head=6", "L=1", "d_head=1"])
def test_merge_heads_shapes(student, rng, B, H, L, d_head):
    _check_merge(student, randn(rng, B, H, L, d_head))


def test_merge_undoes_split(student, rng):
    x = randn(rng, 2, 3, 30)
    heads = student.split_heads(x, 5)
    check_close(student.merge_heads(heads), as64(x), what="merge_heads(split_heads(x, 5)), which should be x")


def test_split_merge_gradients(student, rng, device):
    x = randn(rng, 2, 4, 12, dtype=torch.float64, device=device)
    check_grads(student, "split_heads", ref.split_heads, [x, 3], [0], rng, what="split_heads(x, 3)", names=["x"])
    y = randn(rng, 2, 3, 4, 5, dtype=torch.float64, device=device)
    check_grads(student, "merge_heads", ref.merge_heads, [y], [0], rng, what="merge_heads(x)", names=["x"])


# -- MultiHeadAttention -----------------------------------------------------------------------


def _reference(rng, d_model, n_heads, bias=True):
    """The chapter's module in float64, with the test's own parameters."""
    return reference_module(rng, ref.MultiHeadAttention, d_model, n_heads, bias=bias)


def _load(student, reference, *, device="cpu", dtype=torch.float32):
    """The student's module holding the reference's parameters, on `device` in `dtype`; (module, its name)."""
    options = {} if reference.qkv.bias is not None else {"bias": False}
    return load_module(student, "MultiHeadAttention", reference, reference.qkv.in_features, reference.n_heads,
                       dtype=dtype, device=device, checks=CHECKS, **options)


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_constructor_parameters(student, bias):
    options = {} if bias else {"bias": False}
    for d_model, n_heads in ((12, 3), (30, 5)):
        module = student.MultiHeadAttention(d_model, n_heads, **options)
        check_parameters(module.state_dict(), ref.MultiHeadAttention(d_model, n_heads, bias=bias), exact=True,
                         what=call_text("MultiHeadAttention", (d_model, n_heads), options), **CHECKS)


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_forward_values(student, rng, device, dtype):
    reference = _reference(rng, 12, 3)
    module, what = _load(student, reference, device=device, dtype=dtype)
    x = randn(rng, 2, 5, 12, dtype=dtype, device=device)
    check_forward(module, reference, x, what=f"{what}(x)")


@pytest.mark.parametrize("B,L,D,H,bias", [(2, 4, 30, 5, True), (1, 1, 12, 3, True), (3, 3, 8, 8, True),
                                          (1, 6, 8, 1, True), (2, 5, 12, 4, False)],
                         ids=["d_head=6", "L=1", "d_head=1", "one-head", "no-bias"])
def test_forward_shapes(student, rng, B, L, D, H, bias):
    reference = _reference(rng, D, H, bias=bias)
    module, what = _load(student, reference)
    x = randn(rng, B, L, D)
    check_forward(module, reference, x, what=f"{what}(x) on x of shape {shape_text(x.shape)}")


@pytest.mark.points(2)
def test_no_peeking_at_the_future(student, rng, device):
    module, what = _load(student, _reference(rng, 12, 3), device=device)
    x = randn(rng, 2, 6, 12, device=device)
    later = x.clone()
    later[:, 4:] = randn(rng, 2, 2, 12, device=device)  # change tokens 4 and 5 only
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


@pytest.mark.parametrize("case", ["all-true", "padding"])
def test_explicit_mask(student, rng, device, case):
    reference = _reference(rng, 12, 3)
    module, what = _load(student, reference, device=device)
    x = randn(rng, 3, 5, 12, device=device)
    if case == "all-true":
        mask, text = torch.ones(5, 5, dtype=torch.bool, device=device), "an all-True (L, L) mask"
    else:
        lengths = torch.tensor([5, 2, 4], device=device)
        mask, text = ref.padding_mask(lengths, 5)[:, None], "a (B, 1, 1, L) padding mask"
    check_forward(module, reference, x, mask, what=f"{what}(x, mask) with {text}")


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    reference = _reference(rng, 12, 3)
    module, what = _load(student, reference, device=device, dtype=torch.float64)
    x = randn(rng, 2, 5, 12, dtype=torch.float64, device=device)
    upstream = randn(rng, 2, 5, 12, dtype=torch.float64, device=device)
    check_module_gradients(module, reference, x, upstream, what=f"{what}(x)")


def test_inputs_not_modified(student, rng, device):
    x = randn(rng, 2, 3, 12, device=device)
    check_inputs_kept(student, "split_heads", x, 3, names=["x"])
    heads = randn(rng, 2, 3, 4, 5, device=device)
    check_inputs_kept(student, "merge_heads", heads, names=["x"])
    module, _ = _load(student, _reference(rng, 12, 3), device=device)
    mask = ref.padding_mask(torch.tensor([3, 2], device=device), 3)[:, None]
    check_inputs_kept(module, "__call__", x, mask, names=["x", "mask"])


@pytest.mark.points(2)
@pytest.mark.cuda  # float16 and bfloat16 are checked on CUDA only
def test_half_precision(student, rng, device):
    for dtype in HALF_DTYPES:
        _check_split(student, randn(rng, 2, 5, 12, dtype=dtype, device=device), 3)
        _check_merge(student, randn(rng, 2, 3, 5, 4, dtype=dtype, device=device))
        reference = _reference(rng, 12, 3)
        module, what = _load(student, reference, device=device, dtype=dtype)
        x = randn(rng, 2, 5, 12, dtype=dtype, device=device, scale=0.5)  # small: bf16 rounds every step
        check_forward(module, reference, x, what=f"{what}(x) in {dtype_text(dtype)}")
