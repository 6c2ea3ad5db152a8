"""Exercise 6 — Multi-head attention: `split_heads(x, n_heads)`, `merge_heads(x)` and
`MultiHeadAttention(d_model, n_heads, bias=True)` with `qkv` and `out` Linear layers."""

import itertools
import math

import pytest
import torch
import torch.nn.functional as F

import lumen_ref as ref
from grader.compare import TOLERANCES, Mismatch, check_close, check_tensor, check_unchanged, shape_text
from grader.testkit import as64, check_call, check_grads, randn

DTYPES = [torch.float32, torch.float64]
HALF_DTYPES = [torch.float16, torch.bfloat16]


def _close(got, expected, dtype):
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    got = got.detach().to("cpu", torch.float64)
    return got.shape == expected.shape and bool(torch.isclose(got, expected, rtol=rtol, atol=atol,
                                                              equal_nan=True).all())


def _explained(check, mistakes, dtype):
    """Run `check`; if it fails and the student's value (computed in `dtype`) matches the answer of a
    known mistake, the message names the mistake instead."""
    try:
        return check()
    except Mismatch as mismatch:
        got = mismatch.details.get("got")
        for message, wrong in mistakes():
            if isinstance(got, torch.Tensor) and _close(got, wrong, dtype):
                raise Mismatch(message, **mismatch.details) from None
        raise


# -- split_heads and merge_heads --------------------------------------------------------------


def _check_split(student, x, n_heads):
    B, L, D = x.shape
    what = f"split_heads(x of shape {shape_text(x.shape)}, {n_heads})"

    def mistakes():
        yield (f"{what} viewed (B, L, D) straight as (B, H, L, d_head), which mixes tokens across heads: "
               "view as (B, L, H, d_head), then transpose(1, 2)"), as64(x).reshape(B, n_heads, L, D // n_heads)
        yield (f"{what} cut heads out of the wrong columns: head h holds columns h*d_head .. (h+1)*d_head - 1, "
               "so view as (B, L, H, d_head), not (B, L, d_head, H)"), \
            as64(x).view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)

    got = _explained(lambda: check_call(student, "split_heads", x, n_heads, ref=ref.split_heads, what=what),
                     mistakes, x.dtype)
    check_tensor(got, what=what, dtype=x.dtype, device=x.device)


def _check_merge(student, x):
    B, H, L, d_head = x.shape
    what = f"merge_heads(x of shape {shape_text(x.shape)})"

    def mistakes():
        yield (f"{what} reshaped (B, H, L, d_head) straight to (B, L, D), which mixes tokens across heads: "
               "transpose(1, 2) back to (B, L, H, d_head) first, then .contiguous().view(B, L, H * d_head)"), \
            as64(x).reshape(B, L, H * d_head)
        yield (f"{what} interleaves the heads' columns: each token must hold head 0's d_head numbers, then "
               "head 1's, and so on, i.e. transpose(1, 2), not a permute that puts d_head before H"), \
            as64(x).permute(0, 2, 3, 1).reshape(B, L, H * d_head)

    got = _explained(lambda: check_call(student, "merge_heads", x, ref=ref.merge_heads, what=what), mistakes,
                     x.dtype)
    check_tensor(got, what=what, dtype=x.dtype, device=x.device)


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
    """The chapter's module in float64, its parameters overwritten with values from the test's rng
    (drawn in float32, so the student's float32 copy holds exactly the same numbers)."""
    module = ref.MultiHeadAttention(d_model, n_heads, bias=bias).double()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(randn(rng, *parameter.shape, scale=1 / math.sqrt(d_model)))
    return module


def _expected_parameters(d_model, n_heads, bias):
    module = ref.MultiHeadAttention(d_model, n_heads, bias=bias)
    return {name: tuple(p.shape) for name, p in module.state_dict().items()}


def _construct(student, d_model, n_heads, bias=True, exact=True):
    """student.MultiHeadAttention(d_model, n_heads[, bias=False]), its state dict checked against the
    chapter's: the same keys and shapes (`exact`), or at least the chapter's keys with their shapes."""
    call = f"MultiHeadAttention({d_model}, {n_heads}{', bias=False' * (not bias)})"
    module = student.MultiHeadAttention(d_model, n_heads) if bias else \
        student.MultiHeadAttention(d_model, n_heads, bias=False)
    got = {name: tuple(t.shape) for name, t in module.state_dict().items()}
    expected = _expected_parameters(d_model, n_heads, bias)
    if set(got) != set(expected) if exact else not set(got) >= set(expected):
        listing = ", ".join(f"{name} {shape_text(got[name])}" for name in sorted(got)) or "nothing"
        wanted = ", ".join(sorted(expected))
        if not bias and {"qkv.bias", "out.bias"} & set(got):
            hint = "bias=False must reach both Linear layers: nn.Linear(..., bias=bias)"
        elif set(got) > set(expected):
            hint = ("keep anything else out of the state dict (a causal-mask buffer: register it with "
                    "persistent=False, or build it in forward with causal_mask(L))")
        else:
            hint = ("the chapter's module has exactly self.qkv = nn.Linear(d_model, 3 * d_model) (W_Q | W_K | W_V) "
                    "and self.out = nn.Linear(d_model, d_model) (W_O)")
        raise Mismatch(f"{call}'s state_dict holds {listing}, expected exactly {wanted}: {hint}")
    for name in sorted(expected):
        if got[name] != expected[name]:
            raise Mismatch(
                f"{call}'s {name} has shape {shape_text(got[name])}, expected {shape_text(expected[name])}: "
                "qkv = nn.Linear(d_model, 3 * d_model) holds W_Q, W_K, W_V side by side, "
                "out = nn.Linear(d_model, d_model) is W_O"
            )
    return module


def _load(student, reference, *, device="cpu", dtype=torch.float32):
    """The student's module holding the reference's parameters, on `device` in `dtype`."""
    d_model, n_heads = reference.qkv.in_features, reference.n_heads
    module = _construct(student, d_model, n_heads, bias=reference.qkv.bias is not None, exact=False)
    # not strict: an extra buffer (a causal mask) costs only the constructor test; the chapter's
    # keys are all there with the right shapes, _construct checked that
    module.load_state_dict({name: t.float() for name, t in reference.state_dict().items()}, strict=False)
    module.to(device=device, dtype=dtype)
    return module


def _attention(reference, x, mask=None, *, order=(0, 1, 2), causal=True, scale_width=None,
               split_transposed=True, merge_transposed=True):
    """The chapter's forward in float64, with one of the usual mistakes switched on by the flags."""
    x = as64(x)
    B, L, D = x.shape
    H, d_head = reference.n_heads, D // reference.n_heads
    parts = F.linear(x, reference.qkv.weight, reference.qkv.bias).split(D, dim=-1)
    q, k, v = (parts[i] for i in order)

    def split(t):
        return t.view(B, L, H, d_head).transpose(1, 2) if split_transposed else t.reshape(B, H, L, d_head)

    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(-2, -1) / math.sqrt(scale_width or d_head)
    if mask is None and causal:
        mask = ref.causal_mask(L)
    if mask is not None:
        scores = ref.apply_mask(scores, as64(mask))
    y = ref.softmax(scores, dim=-1) @ v  # (B, H, L, d_head)
    y = y.transpose(1, 2).reshape(B, L, D) if merge_transposed else y.reshape(B, L, D)
    return F.linear(y, reference.out.weight, reference.out.bias)


def _forward_mistakes(reference, x, mask=None):
    names = "qkv"
    D = x.shape[-1]
    if mask is None:
        yield ("with mask=None your attention is not causal, so token i reads tokens after it: use "
               "causal_mask(L) when no mask is given"), _attention(reference, x, causal=False)
    else:
        yield ("your forward ignored the mask it was given: use causal_mask(L) only when mask is None"), \
            _attention(reference, x)
        yield ("your forward ignored the mask it was given: pass it to scaled_dot_product_attention"), \
            _attention(reference, x, causal=False)
    yield (f"your scores are divided by √d_model = √{D}: each head works in d_head = d_model / n_heads "
           "dimensions, so divide by √d_head"), _attention(reference, x, mask, scale_width=D)
    for order in itertools.permutations(range(3)):
        if order != (0, 1, 2):
            taken = ", ".join(names[i] for i in order)
            yield (f"your q, k, v are the parts ({taken}) of qkv(x): q, k, v = self.qkv(x).split(D, dim=-1) "
                   "gives them in the order W_Q | W_K | W_V"), _attention(reference, x, mask, order=order)
    yield ("your heads are cut wrongly: view (B, L, D) as (B, L, H, d_head) and then transpose(1, 2); viewing it "
           "straight as (B, H, L, d_head) mixes tokens across heads"), \
        _attention(reference, x, mask, split_transposed=False)
    yield ("your heads are merged wrongly: transpose (B, H, L, d_head) back to (B, L, H, d_head) before "
           ".contiguous().view(B, L, D); reshaping it straight mixes tokens across heads"), \
        _attention(reference, x, mask, merge_transposed=False)


def _check_forward(module, reference, x, mask=None, *, what):
    got = module(x) if mask is None else module(x, mask)

    def check():
        check_tensor(got, what=what, shape=x.shape, dtype=x.dtype, device=x.device)
        check_close(got, reference(as64(x), None if mask is None else as64(mask)), what=what)

    _explained(check, lambda: ((f"{what} is wrong: {message}", wrong)
                               for message, wrong in _forward_mistakes(reference, x, mask)), x.dtype)
    return got


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_constructor_parameters(student, bias):
    _construct(student, 12, 3, bias=bias)
    _construct(student, 30, 5, bias=bias)


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_forward_values(student, rng, device, dtype):
    reference = _reference(rng, 12, 3)
    module = _load(student, reference, device=device, dtype=dtype)
    x = randn(rng, 2, 5, 12, dtype=dtype, device=device)
    _check_forward(module, reference, x, what="MultiHeadAttention(12, 3)(x)")


@pytest.mark.parametrize("B,L,D,H,bias", [(2, 4, 30, 5, True), (1, 1, 12, 3, True), (3, 3, 8, 8, True),
                                          (1, 6, 8, 1, True), (2, 5, 12, 4, False)],
                         ids=["d_head=6", "L=1", "d_head=1", "one-head", "no-bias"])
def test_forward_shapes(student, rng, B, L, D, H, bias):
    reference = _reference(rng, D, H, bias=bias)
    module = _load(student, reference)
    x = randn(rng, B, L, D)
    call = f"MultiHeadAttention({D}, {H}{', bias=False' * (not bias)})"
    _check_forward(module, reference, x, what=f"{call}(x) on x of shape {shape_text(x.shape)}")


@pytest.mark.points(2)
def test_no_peeking_at_the_future(student, rng, device):
    module = _load(student, _reference(rng, 12, 3), device=device)
    x = randn(rng, 2, 6, 12, device=device)
    later = x.clone()
    later[:, 4:] = randn(rng, 2, 2, 12, device=device)  # change tokens 4 and 5 only
    before, after = module(x), module(later)
    check_tensor(before, what="MultiHeadAttention(12, 3)(x)", shape=x.shape)
    changed = ~torch.isclose(after[:, :4], before[:, :4], rtol=1e-4, atol=1e-5)
    if changed.any():
        position = int(changed.nonzero()[0][1])
        raise Mismatch(f"changing tokens 4 and 5 changed the output at position {position}: token i may only "
                       "read tokens 0..i, so with mask=None attend with causal_mask(L), and keep each token's "
                       "numbers together in split_heads and merge_heads")


@pytest.mark.parametrize("case", ["all-true", "padding"])
def test_explicit_mask(student, rng, device, case):
    reference = _reference(rng, 12, 3)
    module = _load(student, reference, device=device)
    x = randn(rng, 3, 5, 12, device=device)
    if case == "all-true":
        mask, text = torch.ones(5, 5, dtype=torch.bool, device=device), "an all-True (L, L) mask"
    else:
        lengths = torch.tensor([5, 2, 4], device=device)
        mask, text = ref.padding_mask(lengths, 5)[:, None], "a (B, 1, 1, L) padding mask"
    _check_forward(module, reference, x, mask, what=f"MultiHeadAttention(12, 3)(x, mask) with {text}")


@pytest.mark.points(2)
def test_gradients(student, rng, device):
    reference = _reference(rng, 12, 3)
    module = _load(student, reference, device=device, dtype=torch.float64)
    x = randn(rng, 2, 5, 12, dtype=torch.float64, device=device)
    upstream = randn(rng, 2, 5, 12, dtype=torch.float64, device=device)
    _, grads, param_grads = student.backward(module, x, wrt=[0], upstream=[upstream])
    x64 = as64(x).requires_grad_(True)
    names, parameters = zip(*reference.named_parameters())
    loss = (reference(x64) * as64(upstream)).sum()
    expected = torch.autograd.grad(loss, [x64, *parameters])
    for name, got, want in zip(("x", *names), [grads[0], *(param_grads.get(n) for n in names)], expected):
        if got is None:
            raise Mismatch(f"no gradient reached `{name}` through MultiHeadAttention(12, 3)(x): is it used, "
                           "and not detached?")
        check_close(got, want, what=f"the gradient of MultiHeadAttention(12, 3)(x) w.r.t. {name}")


def test_inputs_not_modified(student, rng, device):
    x = randn(rng, 2, 3, 12, device=device)
    check_unchanged(x, student.run("split_heads", x, 3, return_args=True)["args"][0], what="x")
    heads = randn(rng, 2, 3, 4, 5, device=device)
    check_unchanged(heads, student.run("merge_heads", heads, return_args=True)["args"][0], what="x")
    module = _load(student, _reference(rng, 12, 3), device=device)
    mask = ref.padding_mask(torch.tensor([3, 2], device=device), 3)[:, None]
    args = student.run(module, x, mask, method="__call__", return_args=True)["args"]
    check_unchanged(x, args[0], what="x")
    check_unchanged(mask, args[1], what="mask")


@pytest.mark.points(2)
def test_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("float16 and bfloat16 are checked on CUDA only")
    for dtype in HALF_DTYPES:
        name = str(dtype).removeprefix("torch.")
        _check_split(student, randn(rng, 2, 5, 12, dtype=dtype, device=device), 3)
        _check_merge(student, randn(rng, 2, 3, 5, 4, dtype=dtype, device=device))
        reference = _reference(rng, 12, 3)
        module = _load(student, reference, device=device, dtype=dtype)
        x = randn(rng, 2, 5, 12, dtype=dtype, device=device, scale=0.5)  # small: bf16 rounds every step
        _check_forward(module, reference, x, what=f"MultiHeadAttention(12, 3)(x) in {name}")
