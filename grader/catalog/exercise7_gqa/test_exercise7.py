"""Exercise 7 — Grouped-query attention: `repeat_kv(x, n_rep)` and `GroupedQueryAttention`."""

import pytest
import torch

import lumen_ref as ref
from grader.catalog.exercise5_softmax.misconceptions import NAN_GRADIENT
from grader.grading.compare import Mismatch, check_tensor, dtype_text, plural, shape_text
from grader.grading.testkit import (
    Made,
    call_text,
    cases,
    check_call,
    check_device_kept,
    check_forward,
    check_fully_masked_queries,
    check_gradients,
    check_inputs_kept,
    check_module_gradients,
    check_parameters,
    dims,
    load_module,
    per_head_mask,
    randn,
    reference_grads,
    reference_module,
)

GQA_VALUES = ("test_gqa_matches_reference", "test_gqa_float64")  # what the module's property tests wait on
DTYPES = [torch.float32, torch.float64]
HALF = [torch.float16, torch.bfloat16]

# repeat_kv: x (B, n_kv_heads, L, d_head); the module: x (B, L, d_model) with n_heads query heads and
# n_kv_heads KV heads of d_head = d_model / n_heads. tests/catalog/test_sizes.py holds every case to the rule.
SIZES = {
    "repeat_values": dict(B=4, n_kv_heads=2, L=5, d_head=7, n_rep=3),
    "repeat_groups[n_rep=1]": dict(B=2, n_kv_heads=3, L=4, d_head=6, n_rep=1, edge="nothing to repeat"),
    "repeat_groups[MQA]": dict(B=3, n_kv_heads=1, L=4, d_head=6, n_rep=4, edge="multi-query: one KV head"),
    "repeat_groups[4kv-x2]": dict(B=3, n_kv_heads=4, L=5, d_head=6, n_rep=2),
    "repeat_inputs": dict(B=3, n_kv_heads=2, L=6, d_head=5, n_rep=2),
    "repeat_gradients": dict(B=4, n_kv_heads=2, L=5, d_head=7, n_rep=3),
    "repeat_half": dict(B=3, n_kv_heads=2, L=4, d_head=8, n_rep=3),
    "module[GQA-6q-2kv]": dict(B=4, L=7, d_model=18, n_heads=6, n_kv_heads=2, d_head=3),
    "module[GQA-6q-3kv]": dict(B=2, L=7, d_model=24, n_heads=6, n_kv_heads=3, d_head=4),
    "module[MQA-4q-1kv]": dict(B=2, L=7, d_model=12, n_heads=4, n_kv_heads=1, d_head=3, edge="multi-query"),
    "module[MHA-5q-5kv]": dict(B=2, L=7, d_model=15, n_heads=5, n_kv_heads=5, d_head=3,
                               edge="n_kv_heads = n_heads: plain multi-head attention"),
    "float64": dict(B=4, L=7, d_model=18, n_heads=6, n_kv_heads=2, d_head=3),
    "no_peeking": dict(B=4, L=8, d_model=18, n_heads=6, n_kv_heads=2, d_head=3),
    "explicit_mask": dict(B=4, L=7, d_model=18, n_heads=6, n_kv_heads=2, d_head=3, lengths=[6, 4, 2, 5]),
    "single_token": dict(B=4, L=1, d_model=18, n_heads=6, n_kv_heads=2, d_head=3, edge="one token"),
    "module_other": dict(B=4, L=5, d_model=18, n_heads=6, n_kv_heads=2, d_head=3),
    "gradients_padding": dict(B=4, L=7, d_model=18, n_heads=6, n_kv_heads=2, d_head=3, lengths=[6, 0, 4, 5]),
}
CONFIGS = {name[len("module["):-1]: dims(SIZES[name], "d_model", "n_heads", "n_kv_heads") for name in SIZES
           if name.startswith("module[")}  # (d_model, n_heads, n_kv_heads)
GQA = CONFIGS["GQA-6q-2kv"]  # 3 query heads per KV head


def x_of(rng, name, **options):
    """x (B, L, d_model) of the SIZES case `name` (options: randn's)."""
    return randn(rng, *dims(SIZES[name], "B", "L", "d_model"), **options)


def kv_of(rng, name, **options):
    """x (B, n_kv_heads, L, d_head) of the SIZES case `name` and its n_rep."""
    return randn(rng, *dims(SIZES[name], "B", "n_kv_heads", "L", "d_head"), **options), SIZES[name]["n_rep"]


# -- helpers --------------------------------------------------------------------------------


def check_repeat_kv(student, x, n_rep, *, what):
    """The student's repeat_kv(x, n_rep) against the reference's, in x's dtype and device."""
    return check_call(student, "repeat_kv", x, n_rep, ref=ref.repeat_kv, what=what, like=x)


def reference_gqa(rng, config, dtype=torch.float32):
    """lumen_ref's GQA in float64 with the test's own weights (values `dtype` holds exactly)."""
    return reference_module(rng, ref.GroupedQueryAttention, *config, dtype=dtype)


def checks(reference):
    """What check_parameters says about the chapter's four layers, for this configuration."""
    d_model, H, H_kv, d_head = reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads, reference.d_head
    kv = f"(n_kv_heads * d_head, d_model) = ({H_kv} * {d_head}, {d_model})"
    smaller = f": W_{{}} makes only n_kv_heads = {plural(H_kv, 'KV head')}, so {{}}_proj is smaller than q_proj"
    return {
        "layers": "make four bias-free nn.Linear layers named q_proj, k_proj, v_proj and o_proj, as in the chapter",
        "bias": "make every projection nn.Linear(..., bias=False)",
        "formulas": {
            "q_proj.weight": f"(n_heads * d_head, d_model) = ({H} * {d_head}, {d_model})",
            "k_proj.weight": kv + (smaller.format("K", "k") if H_kv != H else ""),
            "v_proj.weight": kv + (smaller.format("V", "v") if H_kv != H else ""),
            "o_proj.weight": f"(d_model, n_heads * d_head) = ({d_model}, {H} * {d_head})",
        },
    }


def load_gqa(student, reference, *, dtype=torch.float32, device="cpu"):
    """The student's GroupedQueryAttention built like `reference`, with its weights: (module, its name)."""
    config = (reference.o_proj.out_features, reference.n_heads, reference.n_kv_heads)
    return load_module(student, "GroupedQueryAttention", reference, *config, dtype=dtype, device=device,
                       checks=checks(reference))


# -- repeat_kv ------------------------------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_text)
def test_repeat_kv_values(student, rng, device, dtype):
    x, n_rep = kv_of(rng, "repeat_values", dtype=dtype, device=device)
    check_repeat_kv(student, x, n_rep, what=f"repeat_kv(x, {n_rep}) with {plural(x.shape[1], 'KV head')}")


@pytest.mark.parametrize("case", cases(SIZES, "repeat_groups"))
def test_repeat_kv_group_sizes(student, rng, case):
    x, n_rep = kv_of(rng, f"repeat_groups[{case}]")
    check_repeat_kv(student, x, n_rep, what=f"repeat_kv(x, {n_rep}) with {plural(x.shape[1], 'KV head')}")


@pytest.mark.needs_values("test_repeat_kv_values")
def test_repeat_kv_input_not_modified(student, rng, device):
    x, n_rep = kv_of(rng, "repeat_inputs", device=device)
    check_inputs_kept(student, "repeat_kv", x, n_rep, names=["x"])


def test_repeat_kv_gradients(student, rng, device):
    x, n_rep = kv_of(rng, "repeat_gradients", dtype=torch.float64, device=device)
    # wrong values explain wrong gradients (and a wrong shape would not meet the upstream gradient)
    check_repeat_kv(student, x, n_rep, what=f"repeat_kv(x, {n_rep})")
    B, H_kv, L, d = x.shape
    upstream = randn(rng, B, H_kv * n_rep, L, d, dtype=torch.float64, device=device)
    _, grads, _ = student.backward("repeat_kv", x, n_rep, wrt=[0], upstream=[upstream])
    expected = reference_grads(ref.repeat_kv, [x, n_rep], [0], [upstream])
    # each KV head's gradient is the sum of the gradients of the query heads it serves
    check_gradients(grads, expected, ["x"], what=f"repeat_kv(x, {n_rep}) (each KV head's gradient is the sum over "
                    "the query heads it serves)")


@pytest.mark.hidden
def test_repeat_kv_half_precision(student, rng, device):
    for dtype in HALF:
        x, n_rep = kv_of(rng, "repeat_half", dtype=dtype, device=device)
        check_repeat_kv(student, x, n_rep, what=f"repeat_kv(x, {n_rep}) in {dtype_text(dtype)}")


# -- GroupedQueryAttention: parameters ------------------------------------------------------


@pytest.mark.parametrize("config", ["GQA-6q-2kv", "MQA-4q-1kv", "MHA-5q-5kv"])
def test_gqa_parameters(student, rng, config):
    module = student.GroupedQueryAttention(*CONFIGS[config])
    reference = ref.GroupedQueryAttention(*CONFIGS[config])
    check_parameters(module.state_dict(), reference, what=call_text("GroupedQueryAttention", CONFIGS[config], {}),
                     made=Made("GroupedQueryAttention", CONFIGS[config]), **checks(reference))


# -- GroupedQueryAttention: forward ---------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("config", list(CONFIGS))
def test_gqa_matches_reference(student, rng, device, config):
    reference = reference_gqa(rng, CONFIGS[config])
    module, what = load_gqa(student, reference, device=device)
    x = x_of(rng, f"module[{config}]", device=device)
    check_forward(module, reference, x, what=f"{what}(x) with x {shape_text(x.shape)}")


def test_gqa_float64(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_gqa(student, reference, dtype=torch.float64, device=device)
    x = x_of(rng, "float64", dtype=torch.float64, device=device)
    check_forward(module, reference, x, what=f"{what} in float64")


@pytest.mark.needs_values(*GQA_VALUES)
@pytest.mark.points(2)
def test_gqa_no_peeking(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_gqa(student, reference, dtype=torch.float64, device=device)
    x = x_of(rng, "no_peeking", dtype=torch.float64, device=device)
    changed = x.clone()
    changed[:, 5:] = randn(rng, x.shape[0], x.shape[1] - 5, x.shape[2], dtype=torch.float64, device=device)
    before = module(x)
    call = module.last_call()
    after = module(changed)
    check_tensor(before, what=f"{what}(x)", shape=x.shape)
    check_tensor(after, what=f"{what}(x)", shape=x.shape)
    moved = (before[:, :5] - after[:, :5]).abs().amax(dim=(0, 2)) > 1e-9  # (5,)
    if moved.any():
        first = int(moved.nonzero()[0])
        raise Mismatch(
            f"{what}(x): changing tokens 5..{x.shape[1] - 1} changed the output of token {first}: no peeking at the "
            "future; with mask=None forward must use causal_mask(L), so token i sees only tokens 0..i", call=call,
        )


def test_gqa_explicit_mask(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_gqa(student, reference, device=device)
    size = SIZES["explicit_mask"]
    L = size["L"]
    x = x_of(rng, "explicit_mask", device=device)
    lengths = torch.tensor(size["lengths"])
    mask = (torch.arange(L)[None, :] < lengths[:, None])[:, None, None, :]  # (B, 1, 1, L) padding
    mask = (mask & ref.causal_mask(L)).to(device)  # (B, 1, L, L)
    check_forward(module, reference, x, mask=mask, what=f"{what}(x, mask) with a padding mask (B, 1, L, L)")
    # any mask that broadcasts to the scores, one of (L, L) too (round 26's a4 unsqueezed it for the groups)
    check_forward(module, reference, x, mask=mask[1, 0], what=f"{what}(x, mask) with a mask of shape (L, L)")
    # and one of each query head's own, (B, H, L, L): a head of a group given another's mask reads other keys
    check_forward(module, reference, x, mask=per_head_mask(rng, mask, size["n_heads"]),
                  what=f"{what}(x, mask) with a mask of each query head's own, (B, H, L, L)")


@pytest.mark.hidden
def test_gqa_single_token(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_gqa(student, reference, device=device)
    x = x_of(rng, "single_token", device=device)
    check_forward(module, reference, x, what=f"{what}(x) with L = 1")


@pytest.mark.hidden
def test_gqa_large_scores(student, rng):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_gqa(student, reference, dtype=torch.float64)
    x = x_of(rng, "module_other", dtype=torch.float64, scale=60.0)  # scores of about 1e4
    check_forward(module, reference, x, what=f"{what}(x) with scores of about 1e4")


@pytest.mark.hidden
def test_gqa_fully_masked_rows(student, rng):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_gqa(student, reference, dtype=torch.float64)
    x = x_of(rng, "module_other", dtype=torch.float64)
    check_fully_masked_queries(module, reference, x, what=what,
                               nan_hint="a query whose every key is masked must get zeros, not NaN: use the given "
                                        "scaled_dot_product_attention, which zeroes such rows")


@pytest.mark.needs_values(*GQA_VALUES)
def test_gqa_input_not_modified(student, rng, device):
    reference = reference_gqa(rng, GQA)
    module, what = load_gqa(student, reference, device=device)
    x = x_of(rng, "module_other", device=device)
    check_inputs_kept(module, "__call__", x, names=["x"])
    B, L = x.size(0), x.size(-2)  # the caller's padding-shaped mask, which its other layers use too (round 26's a9)
    mask = ref.causal_mask(L).expand(B, 1, L, L).clone().to(device)
    check_inputs_kept(module, "__call__", x, mask, names=["x", "mask"])


@pytest.mark.points(2)
def test_gqa_gradients(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_gqa(student, reference, dtype=torch.float64, device=device)
    x = x_of(rng, "module_other", dtype=torch.float64, device=device)
    upstream = x_of(rng, "module_other", dtype=torch.float64, device=device)
    check_module_gradients(module, reference, x, upstream, what=f"{what}(x)")


@pytest.mark.points(2)
@pytest.mark.hidden
def test_gqa_half_precision(student, rng, device):
    for dtype in HALF:
        reference = reference_gqa(rng, GQA, dtype)
        module, what = load_gqa(student, reference, dtype=dtype, device=device)
        x = x_of(rng, "module_other", dtype=dtype, device=device, scale=0.5)  # outputs ~0.25: well above atol
        check_forward(module, reference, x, what=f"{what}(x) in {dtype_text(dtype)}")


# -- gradients through fully masked rows -----------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.hidden
def test_gqa_gradients_fully_masked_rows(student, rng, device):
    reference = reference_gqa(rng, GQA, torch.float64)
    module, what = load_gqa(student, reference, dtype=torch.float64, device=device)
    size = SIZES["gradients_padding"]
    x = x_of(rng, "gradients_padding", dtype=torch.float64, device=device)
    upstream = x_of(rng, "gradients_padding", dtype=torch.float64, device=device, scale=10.0)
    padding = (torch.arange(size["L"]) < torch.tensor(size["lengths"])[:, None])[:, None, None, :]  # (B, 1, 1, L)
    mask = (padding & ref.causal_mask(size["L"])).to(device)  # (B, 1, L, L): sequence 1 is all padding
    check_module_gradients(
        module, reference, x, upstream, mask=mask, what=f"{what}(x, mask) with a sequence of length 0",
        nan_hint="sequence 1 has length 0, so its queries see no key: they must get zeros, with finite gradients "
                 "(zeros through them) too. A NaN made and then dropped (torch.softmax of a row of -inf, then "
                 "nan_to_num or torch.where) still flows backwards through a mask added to the scores: use the "
                 "given scaled_dot_product_attention, whose masked_fill stops it", cause=NAN_GRADIENT)


# -- devices: the causal mask is made on x's device ----------------------------------------------


@pytest.mark.needs_values(*GQA_VALUES)
def test_gqa_on_the_inputs_device(student, rng, device):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with x and the module on a stand-in device."""
    module, what = load_gqa(student, reference_gqa(rng, GQA), device=device)
    check_device_kept(module, "__call__", x_of(rng, "module[GQA-6q-2kv]"), device=device,
                      what=f"{what}(x) with mask=None")
