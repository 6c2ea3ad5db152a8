"""Exercise 7 — Grouped-query attention: `repeat_kv(x, n_rep)` and `GroupedQueryAttention`."""

import pytest
import torch

import lumen_ref as ref
from grader.compare import TOLERANCES, Mismatch, check_close, check_tensor, check_unchanged, shape_text
from grader.testkit import as64, randn, reference_grads

DTYPES = [torch.float32, torch.float64]
HALF = [torch.float16, torch.bfloat16]

# (d_model, n_heads, n_kv_heads); every d_head is 3, not a power of two
GQA = (18, 6, 2)  # 3 query heads per KV head
CONFIGS = {
    "GQA-6q-2kv": GQA,
    "GQA-6q-3kv": (18, 6, 3),  # 2 query heads per KV head
    "MQA-4q-1kv": (12, 4, 1),  # multi-query: one KV head for everyone
    "MHA-5q-5kv": (15, 5, 5),  # n_kv_heads == n_heads: plain multi-head attention
}


# -- helpers --------------------------------------------------------------------------------


def check_repeat_kv(got, x, n_rep, *, what, dtype=None, device=None):
    """The student's repeat_kv(x, n_rep) result, with a hint for the classic wrong orders."""
    B, H_kv, L, d = x.shape
    expected = ref.repeat_kv(as64(x), n_rep)
    check_tensor(got, what=what, dtype=dtype, device=device)
    if tuple(got.shape) != tuple(expected.shape):
        for dim, name in ((2, "sequence"), (3, "d")):
            wrong = [B, H_kv, L, d]
            wrong[dim] *= n_rep
            if tuple(got.shape) == tuple(wrong) and n_rep > 1:
                raise Mismatch(
                    f"{what} has shape {shape_text(got.shape)}, expected {shape_text(expected.shape)}: "
                    f"you repeated along the {name} dim ({dim}); repeat along the heads dim (dim=1)"
                )
    try:
        check_close(got, expected, what=what, dtype=dtype)
    except Mismatch as mismatch:
        if n_rep > 1 and H_kv > 1 and _matches(got, as64(x).repeat(1, n_rep, 1, 1)):
            raise Mismatch(
                f"{what} puts the heads in the order {_head_order(H_kv, n_rep, tile=True)}, expected "
                f"{_head_order(H_kv, n_rep)}: repeat_interleave, not repeat: query head j should read "
                f"KV head j // n_rep", **mismatch.details,
            ) from None
        raise


def _s(n):
    return "" if n == 1 else "s"


def _name(dtype):
    return str(dtype).removeprefix("torch.")


def _head_order(H_kv, n_rep, tile=False):
    heads = [j % H_kv if tile else j // n_rep for j in range(H_kv * n_rep)]
    return "[" + ", ".join(map(str, heads)) + "]"


def _matches(got, hypothesis, dtype=None):
    """Does got equal a wrong answer (within 10x the dtype's tolerance)? For hints only."""
    if tuple(got.shape) != tuple(hypothesis.shape):
        return False
    rtol, atol = TOLERANCES.get(dtype or got.dtype, TOLERANCES[torch.float32])
    got64 = got.detach().to("cpu", torch.float64)
    return bool(torch.allclose(got64, hypothesis.to("cpu", torch.float64), rtol=10 * rtol, atol=10 * atol))


def reference_module(rng, config, dtype=torch.float32):
    """lumen_ref's GQA in float64 with random weights (values representable in `dtype`)."""
    d_model, n_heads, n_kv_heads = config
    module = ref.GroupedQueryAttention(d_model, n_heads, n_kv_heads).double()
    with torch.no_grad():
        for param in module.parameters():
            param.copy_(randn(rng, *param.shape, dtype=dtype, scale=d_model ** -0.5))
    return module


def check_parameters(state, reference, *, what):
    """The student's state dict has the chapter's parameter names and shapes."""
    expected = {name: tuple(p.shape) for name, p in reference.state_dict().items()}
    got = {name: tuple(t.shape) for name, t in state.items() if isinstance(t, torch.Tensor)}
    for name in expected:
        if name not in got:
            have = ", ".join(sorted(got)) or "no parameters at all"
            raise Mismatch(
                f"{what} has no parameter `{name}` (it has {have}): make four bias-free nn.Linear "
                "layers named q_proj, k_proj, v_proj and o_proj, as in the chapter"
            )
    biases = sorted(name for name in got if name.endswith("bias"))
    if biases:
        raise Mismatch(f"{what} has a parameter `{biases[0]}` the chapter's layer doesn't have: "
                       "make every projection nn.Linear(..., bias=False)")
    d_model, n_heads, n_kv_heads = reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads
    d_head = reference.d_head
    formulas = {
        "q_proj.weight": f"(n_heads * d_head, d_model) = ({n_heads} * {d_head}, {d_model})",
        "k_proj.weight": f"(n_kv_heads * d_head, d_model) = ({n_kv_heads} * {d_head}, {d_model})",
        "v_proj.weight": f"(n_kv_heads * d_head, d_model) = ({n_kv_heads} * {d_head}, {d_model})",
        "o_proj.weight": f"(d_model, n_heads * d_head) = ({d_model}, {n_heads} * {d_head})",
    }
    for name, shape in expected.items():
        if got[name] == shape:
            continue
        text = (f"{what}: `{name}` has shape {shape_text(got[name])}, expected {shape_text(shape)}, "
                f"that is {formulas.get(name, '')}")
        if name[0] in "kv" and got[name] == (n_heads * d_head, d_model) and n_kv_heads != n_heads:
            text += (f": W_{name[0].upper()} makes only n_kv_heads = {n_kv_heads} KV head{_s(n_kv_heads)}, "
                     f"so {name[:6]} is smaller than q_proj")
        elif got[name] == shape[::-1]:
            text += ": nn.Linear(in_features, out_features) stores its weight as (out, in)"
        raise Mismatch(text)


def load_student(student, reference, *, dtype=torch.float32, device="cpu", name="GroupedQueryAttention"):
    """The student's module built like `reference`, loaded with its weights, in dtype on device."""
    config = (reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads)
    module = getattr(student, name)(*config)
    what = f"{name}{config}"
    check_parameters(module.state_dict(), reference, what=what)
    module.to(device=device, dtype=dtype)
    # strict=False: names and shapes are checked above, and a registered mask buffer is fine
    module.load_state_dict({k: v.to(device=device, dtype=dtype) for k, v in reference.state_dict().items()},
                           strict=False)
    return module, what


def attend64(module, x, mask, tile=False):
    """float64 GQA with lumen_ref's weights and pieces, optionally with a classic bug. Hints only."""
    B, L, _ = x.shape
    H, H_kv, d_head = module.n_heads, module.n_kv_heads, module.d_head
    with torch.no_grad():
        q = module.q_proj(x).view(B, L, H, d_head).transpose(1, 2)
        k = module.k_proj(x).view(B, L, H_kv, d_head).transpose(1, 2)
        v = module.v_proj(x).view(B, L, H_kv, d_head).transpose(1, 2)
        if tile:
            k, v = k.repeat(1, H // H_kv, 1, 1), v.repeat(1, H // H_kv, 1, 1)
        else:
            k, v = ref.repeat_kv(k, H // H_kv), ref.repeat_kv(v, H // H_kv)
        y, _ = ref.scaled_dot_product_attention(q, k, v, mask)
        return module.o_proj(y.transpose(1, 2).reshape(B, L, H * d_head))


def check_forward(got, x, reference, *, what, dtype, device, mask=None, nan_hint=""):
    """The student's forward(x[, mask]) against lumen_ref's, with hints for the classic bugs."""
    x64 = as64(x)
    with torch.no_grad():
        expected = reference(x64, None if mask is None else mask.cpu())
    check_tensor(got, what=what, shape=expected.shape, dtype=dtype, device=device)
    try:
        check_close(got, expected, what=what, dtype=dtype, nan_hint=nan_hint)
    except Mismatch as mismatch:
        L = x.shape[1]
        causal = ref.causal_mask(L) if mask is None else mask.cpu()
        rep = reference.n_heads // reference.n_kv_heads
        if 1 < rep < reference.n_heads and _matches(got, attend64(reference, x64, causal, tile=True), dtype):
            raise Mismatch(
                f"{what} pairs query heads with the wrong KV heads ({_head_order(reference.n_kv_heads, rep, True)} "
                f"instead of {_head_order(reference.n_kv_heads, rep)}): repeat_interleave, not repeat: "
                "query head j should read KV head j // n_rep", **mismatch.details,
            ) from None
        if mask is None and L > 1 and _matches(got, attend64(reference, x64, None), dtype):
            raise Mismatch(
                f"{what} lets every token see the whole sequence: with mask=None forward must be causal "
                "(mask = causal_mask(L)), so token i sees only tokens 0..i", **mismatch.details,
            ) from None
        raise


# -- repeat_kv ------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=["float32", "float64"])
def test_repeat_kv_values(student, rng, device, dtype):
    x = randn(rng, 2, 2, 5, 3, dtype=dtype, device=device)  # H_kv = 2 KV heads, d = 3
    got = student.repeat_kv(x, 3)
    check_repeat_kv(got, x, 3, what="repeat_kv(x, 3) with 2 KV heads", dtype=dtype, device=device)


@pytest.mark.parametrize("H_kv, n_rep", [(3, 1), (1, 4), (4, 2)], ids=["n_rep=1", "MQA", "4kv-x2"])
def test_repeat_kv_group_sizes(student, rng, H_kv, n_rep):
    x = randn(rng, 3, H_kv, 4, 6)
    got = student.repeat_kv(x, n_rep)
    check_repeat_kv(got, x, n_rep, what=f"repeat_kv(x, {n_rep}) with {H_kv} KV head{_s(H_kv)}")


def test_repeat_kv_input_not_modified(student, rng, device):
    x = randn(rng, 2, 2, 4, 3, device=device)
    reply = student.run("repeat_kv", x, 2, return_args=True)
    check_unchanged(x, reply["args"][0], what="x")


def test_repeat_kv_gradients(student, rng, device):
    x = randn(rng, 2, 2, 4, 3, dtype=torch.float64, device=device)
    # each KV head's gradient is the sum of the gradients of the query heads it serves
    # wrong values explain wrong gradients (and a wrong shape would not meet the upstream gradient)
    check_repeat_kv(student.repeat_kv(x, 3), x, 3, what="repeat_kv(x, 3)")
    upstream = randn(rng, 2, 6, 4, 3, dtype=torch.float64, device=device)
    _, grads, _ = student.backward("repeat_kv", x, 3, wrt=[0], upstream=[upstream])
    expected = reference_grads(ref.repeat_kv, [x, 3], [0], [upstream])[0]
    if grads[0] is None:
        raise AssertionError("repeat_kv(x, 3): no gradient reached `x`; is it used, and not detached?")
    check_close(grads[0], expected, what="the gradient of repeat_kv(x, 3) w.r.t. x (each KV head's "
                "gradient is the sum over the query heads it serves)")


@pytest.mark.hidden
def test_repeat_kv_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        x = randn(rng, 2, 2, 4, 8, dtype=dtype, device=device)
        got = student.repeat_kv(x, 3)
        check_repeat_kv(got, x, 3, what=f"repeat_kv(x, 3) in {_name(dtype)}", dtype=dtype, device=device)


# -- GroupedQueryAttention: parameters ------------------------------------------------------


@pytest.mark.parametrize("config", ["GQA-6q-2kv", "MQA-4q-1kv", "MHA-5q-5kv"])
def test_gqa_parameters(student, rng, config):
    d_model, n_heads, n_kv_heads = CONFIGS[config]
    module = student.GroupedQueryAttention(d_model, n_heads, n_kv_heads)
    reference = ref.GroupedQueryAttention(d_model, n_heads, n_kv_heads)
    check_parameters(module.state_dict(), reference,
                     what=f"GroupedQueryAttention({d_model}, {n_heads}, {n_kv_heads})")


# -- GroupedQueryAttention: forward ---------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("config", list(CONFIGS))
def test_gqa_matches_reference(student, rng, device, config):
    reference = reference_module(rng, CONFIGS[config])
    module, what = load_student(student, reference, device=device)
    x = randn(rng, 2, 7, CONFIGS[config][0], device=device)
    check_forward(module(x), x, reference, what=f"{what}(x) with x (2, 7, {CONFIGS[config][0]})",
                  dtype=torch.float32, device=device)


def test_gqa_float64(student, rng, device):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 3, 6, GQA[0], dtype=torch.float64, device=device)
    check_forward(module(x), x, reference, what=f"{what} in float64", dtype=torch.float64, device=device)


@pytest.mark.points(2)
def test_gqa_no_peeking(student, rng, device):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 8, GQA[0], dtype=torch.float64, device=device)
    changed = x.clone()
    changed[:, 5:] = randn(rng, 2, 3, GQA[0], dtype=torch.float64, device=device)
    before, after = module(x), module(changed)
    check_tensor(before, what=f"{what}(x)", shape=x.shape)
    check_tensor(after, what=f"{what}(x)", shape=x.shape)
    moved = (before[:, :5] - after[:, :5]).abs().amax(dim=(0, 2)) > 1e-9  # (5,)
    if moved.any():
        first = int(moved.nonzero()[0])
        raise Mismatch(
            f"{what}(x): changing tokens 5..7 changed the output of token {first}: no peeking at the "
            "future; with mask=None forward must use causal_mask(L), so token i sees only tokens 0..i"
        )


def test_gqa_explicit_mask(student, rng, device):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, device=device)
    B, L = 3, 6
    x = randn(rng, B, L, GQA[0], device=device)
    lengths = torch.tensor([6, 4, 2])
    mask = (torch.arange(L)[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, L) padding
    mask = (mask & ref.causal_mask(L)).to(device)  # (B, 1, L, L)
    got = module(x, mask=mask)
    check_forward(got, x, reference, what=f"{what}(x, mask) with a padding mask (B, 1, L, L)",
                  dtype=torch.float32, device=device, mask=mask)


@pytest.mark.hidden
def test_gqa_single_token(student, rng, device):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, device=device)
    x = randn(rng, 2, 1, GQA[0], device=device)
    check_forward(module(x), x, reference, what=f"{what}(x) with L = 1", dtype=torch.float32, device=device)


@pytest.mark.hidden
def test_gqa_large_scores(student, rng):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64)
    x = randn(rng, 2, 5, GQA[0], dtype=torch.float64, scale=60.0)  # scores of about 1e4
    check_forward(module(x), x, reference, what=f"{what}(x) with scores of about 1e4", dtype=torch.float64,
                  device="cpu")


@pytest.mark.hidden
def test_gqa_fully_masked_rows(student, rng):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64)
    x = randn(rng, 2, 4, GQA[0], dtype=torch.float64)
    mask = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    mask[1] = False  # the second sequence is all padding: its queries see no key at all
    check_forward(module(x, mask), x, reference, what=f"{what}(x, mask) where every key of a query is masked",
                  dtype=torch.float64, device="cpu", mask=mask,
                  nan_hint="a query whose every key is masked must get zeros, not NaN: use the given "
                           "scaled_dot_product_attention, which zeroes such rows")


def test_gqa_input_not_modified(student, rng, device):
    reference = reference_module(rng, GQA)
    module, what = load_student(student, reference, device=device)
    x = randn(rng, 2, 5, GQA[0], device=device)
    reply = student.run(module, x, method="__call__", return_args=True)
    check_unchanged(x, reply["args"][0], what="x")


@pytest.mark.points(2)
def test_gqa_gradients(student, rng, device):
    reference = reference_module(rng, GQA, torch.float64)
    module, what = load_student(student, reference, dtype=torch.float64, device=device)
    x = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    upstream = randn(rng, 2, 5, GQA[0], dtype=torch.float64, device=device)
    value, grads, param_grads = student.backward(module, x, wrt=[0], upstream=[upstream])
    # wrong outputs explain wrong gradients: report those first, with their hints
    check_forward(value, x, reference, what=f"{what}(x)", dtype=torch.float64, device=device)
    x64 = as64(x).requires_grad_(True)
    names, params = zip(*reference.named_parameters())
    loss = (reference(x64) * as64(upstream)).sum()
    expected = torch.autograd.grad(loss, [x64, *params])
    for got, want, name in zip([grads[0]] + [param_grads.get(n) for n in names], expected, ("x",) + names):
        if got is None:
            raise AssertionError(f"{what}: no gradient reached `{name}`; is it used, and not detached?")
        check_close(got, want, what=f"the gradient of {what}(x) w.r.t. {name}", dtype=torch.float64)


@pytest.mark.points(2)
@pytest.mark.hidden
def test_gqa_half_precision(student, rng, device):
    if device != "cuda":
        pytest.skip("half precision is checked on CUDA only")
    for dtype in HALF:
        reference = reference_module(rng, GQA, dtype)
        module, what = load_student(student, reference, dtype=dtype, device=device)
        x = randn(rng, 2, 6, GQA[0], dtype=dtype, device=device, scale=0.5)  # outputs ~0.25: well above atol
        check_forward(module(x), x, reference, what=f"{what}(x) in {_name(dtype)}", dtype=dtype,
                      device=device)
