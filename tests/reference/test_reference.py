"""Prove `lumen_ref` (the grader's answer key) against independent answers.

Three independent sources, none of which is lumen_ref itself:
  * `grader.oracle`: a float64 NumPy re-derivation of every step (loops over heads and queries);
  * torch's own built-ins: F.scaled_dot_product_attention and nn.MultiheadAttention;
  * finite differences (torch.autograd.gradcheck) and hand-worked numbers from the chapter.
Every expected value is computed from the *inputs*, never from lumen_ref's output.
"""

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

import lumen_ref as ref
from grader import oracle

F64, F32 = torch.float64, torch.float32
DTYPES = [pytest.param(F64, id="f64"), pytest.param(F32, id="f32")]
TOL = {F64: dict(rtol=1e-10, atol=1e-12), F32: dict(rtol=2e-5, atol=2e-5)}


def rng_for(*key):
    return np.random.default_rng(_seed(key))


def _seed(key):
    """A stable seed from a test's parameters (Python's hash() is salted per run)."""
    return sum((i + 1) * ord(c) for i, c in enumerate(repr(key))) % 2**32


def randn(rng, shape, dtype, scale=1.0):
    return torch.tensor(rng.standard_normal(shape) * scale, dtype=dtype)


def np64(t):
    return t.detach().cpu().numpy().astype(np.float64)


def close(actual, expected, dtype):
    """actual: a lumen_ref torch result; expected: the oracle's float64 answer."""
    assert isinstance(actual, torch.Tensor) and actual.dtype == dtype, (type(actual), getattr(actual, "dtype", None))
    assert tuple(actual.shape) == tuple(np.shape(expected)), (tuple(actual.shape), np.shape(expected))
    np.testing.assert_allclose(np64(actual), expected, **TOL[dtype])


# ---------------------------------------------------------------------------------------------
# Step 1 -- Project.  Step 2 -- Score.  Step 3 -- Scale.

PROJECT_SHAPES = [  # lead dims, L, d_model, d_k, d_v
    pytest.param((), 1, 3, 3, 3, id="noBatch_L1"),
    pytest.param((1,), 5, 7, 6, 10, id="B1_L5_dk6_dv10"),
    pytest.param((2, 3), 4, 8, 10, 6, id="lead2x3_L4_dk10_dv6"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead, L, d_model, d_k, d_v", PROJECT_SHAPES)
def test_project(lead, L, d_model, d_k, d_v, dtype):
    rng = rng_for("project", lead, L, d_model, d_k, d_v)
    x = randn(rng, lead + (L, d_model), dtype)
    w_q, w_k, w_v = (randn(rng, (d_model, d), dtype) for d in (d_k, d_k, d_v))
    for got, want in zip(ref.project(x, w_q, w_k, w_v), oracle.project(np64(x), np64(w_q), np64(w_k), np64(w_v))):
        close(got, want, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead, L, d_model, d_k, d_v", PROJECT_SHAPES)
def test_fused_project(lead, L, d_model, d_k, d_v, dtype):
    rng = rng_for("fused", lead, L, d_model, d_k)
    x = randn(rng, lead + (L, d_model), dtype)
    w = randn(rng, (d_model, 3 * d_k), dtype)
    got = ref.fused_project(x, w)
    assert len(got) == 3
    for g, want in zip(got, oracle.fused_project(np64(x), np64(w))):
        close(g, want, dtype)


SCORE_SHAPES = [  # q lead, k lead, L_q, L_k, d_k
    pytest.param((), (), 1, 1, 6, id="noBatch_L1_dk6"),
    pytest.param((1,), (1,), 3, 7, 10, id="B1_Lq3_Lk7_dk10"),
    pytest.param((2, 3), (2, 3), 5, 2, 6, id="lead2x3_Lq5_Lk2"),
    pytest.param((2, 3), (3,), 4, 4, 5, id="kBroadcast_lead2x3_vs_3"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("q_lead, k_lead, L_q, L_k, d_k", SCORE_SHAPES)
def test_scores_scale(q_lead, k_lead, L_q, L_k, d_k, dtype):
    rng = rng_for("scores", q_lead, k_lead, L_q, L_k, d_k)
    q = randn(rng, q_lead + (L_q, d_k), dtype)
    k = randn(rng, k_lead + (L_k, d_k), dtype)
    close(ref.attention_scores(q, k), oracle.attention_scores(np64(q), np64(k)), dtype)
    close(ref.scaled_scores(q, k), oracle.scaled_scores(np64(q), np64(k)), dtype)
    s = randn(rng, q_lead + (L_q, L_k), dtype, scale=5)
    close(ref.scale_scores(s, d_k), oracle.scale_scores(np64(s), d_k), dtype)


def test_scale_is_sqrt_dk_not_dk():
    s = torch.tensor([[8.0, -4.0]], dtype=F64)
    torch.testing.assert_close(ref.scale_scores(s, 16), torch.tensor([[2.0, -1.0]], dtype=F64), rtol=0, atol=0)


# ---------------------------------------------------------------------------------------------
# Masks


@pytest.mark.parametrize("L", [1, 2, 5, 9], ids=lambda L: f"L{L}")
def test_causal_mask(L):
    m = ref.causal_mask(L)
    assert m.dtype == torch.bool and tuple(m.shape) == (L, L)
    np.testing.assert_array_equal(m.numpy(), oracle.causal_mask(L))
    assert ref.causal_mask(L, device="cpu").device.type == "cpu"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_shape", [(2, 3, 4, 5), (4, 5), (2, 1, 1, 5), (5,)],
                         ids=lambda s: "mask" + "x".join(map(str, s)))
def test_apply_mask(mask_shape, dtype):
    rng = rng_for("apply_mask", mask_shape)
    scores = randn(rng, (2, 3, 4, 5), dtype)
    mask = torch.tensor(rng.random(mask_shape) < 0.5)
    before = scores.clone()
    got = ref.apply_mask(scores, mask)
    close(got, oracle.apply_mask(np64(scores), mask.numpy()), dtype)
    torch.testing.assert_close(scores, before, rtol=0, atol=0)  # a new tensor: input untouched


@pytest.mark.parametrize("lengths, L", [
    pytest.param([3, 0, 5, 1], 5, id="B4_with_len0_and_full"),
    pytest.param([0], 1, id="B1_len0_L1"),
    pytest.param([2], 4, id="B1_len2_L4"),
])
@pytest.mark.parametrize("int_dtype", [torch.int64, torch.int32], ids=["int64", "int32"])
def test_padding_mask(lengths, L, int_dtype):
    m = ref.padding_mask(torch.tensor(lengths, dtype=int_dtype), L)
    assert m.dtype == torch.bool and tuple(m.shape) == (len(lengths), 1, L)
    np.testing.assert_array_equal(m.numpy(), oracle.padding_mask(lengths, L))


# ---------------------------------------------------------------------------------------------
# Step 4 -- Softmax


def _softmax_input(kind, rng):
    if kind == "random":
        return rng.standard_normal((2, 3, 5)) * 3
    if kind == "huge_1e4":  # +-1e4 plus half-integers: exact in float32, exp would overflow unshifted
        return np.sign(rng.standard_normal((2, 3, 5))) * 1e4 + rng.integers(-20, 20, (2, 3, 5)) * 0.5
    if kind == "zeros":
        return np.zeros((2, 3, 5))
    if kind == "partial_-inf":
        x = rng.standard_normal((2, 3, 5))
        x[rng.random(x.shape) < 0.4] = -np.inf
        x[..., 0] = 1.0  # every slice along every axis keeps a finite entry
        x[0] = 0.5
        x[:, 0] = 0.25
        return x
    if kind == "all_-inf_slices":
        x = rng.standard_normal((2, 3, 5))
        x[0, 1, :] = -np.inf  # a whole row (dim -1)
        x[1, :, 2] = -np.inf  # a whole column (dim 1)
        x[:, 2, 4] = -np.inf  # a whole dim-0 slice
        return x
    if kind == "single":
        return np.array([[[3.0]]])
    raise ValueError(kind)


SOFTMAX_KINDS = ["random", "huge_1e4", "zeros", "partial_-inf", "all_-inf_slices", "single"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [-1, 0, 1], ids=lambda d: f"dim{d}")
@pytest.mark.parametrize("kind", SOFTMAX_KINDS)
def test_softmax(kind, dim, dtype):
    x = torch.tensor(_softmax_input(kind, rng_for("softmax", kind)), dtype=dtype)
    got = ref.softmax(x, dim=dim)
    want = oracle.softmax(np64(x), axis=dim)
    close(got, want, dtype)
    assert torch.isfinite(got).all(), "softmax produced NaN/inf"
    sums = got.sum(dim=dim).double().numpy()
    live = np.isfinite(np64(x)).any(axis=dim)
    np.testing.assert_allclose(sums, np.where(live, 1.0, 0.0), rtol=0, atol=1e-6)


def test_softmax_matches_torch_on_finite_input():
    x = torch.tensor(_softmax_input("random", rng_for("sm-torch")), dtype=F64)
    torch.testing.assert_close(ref.softmax(x, dim=-1), torch.softmax(x, dim=-1), rtol=1e-12, atol=1e-14)


def test_chapter_sat_example():
    """'The cat sat down': raw scores 0, 5, 1, 2 at d=3 give weights ~ 4%, 75%, 7%, 13%."""
    w = ref.softmax(ref.scale_scores(torch.tensor([0.0, 5.0, 1.0, 2.0], dtype=F64), 3), dim=-1)
    torch.testing.assert_close(w, torch.tensor([0.04, 0.75, 0.07, 0.13], dtype=F64), rtol=0, atol=5e-3)
    np.testing.assert_allclose(oracle.softmax(np.array([0.0, 5, 1, 2]) / np.sqrt(3)), w.numpy(), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# Steps 2-5: scaled dot-product attention

SDPA_SHAPES = [  # lead dims, L_q, L_k, d_k, d_v
    pytest.param((1,), 1, 1, 6, 6, id="B1_L1_dk6"),
    pytest.param((2,), 3, 7, 10, 5, id="B2_Lq3_Lk7_dk10_dv5"),
    pytest.param((2, 3), 5, 5, 6, 6, id="lead2x3_L5_dk6"),
    pytest.param((), 4, 9, 6, 3, id="noBatch_Lq4_Lk9"),
    pytest.param((1,), 1, 5, 10, 10, id="B1_Lq1_Lk5_dk10"),
    pytest.param((3,), 6, 2, 7, 4, id="B3_Lq6_Lk2_dk7"),
]
MASK_KINDS = ["none", "random_with_empty_row", "causal_bottom_right", "keys_only"]


def _mask(kind, rng, lead, L_q, L_k):
    if kind == "none":
        return None
    if kind == "random_with_empty_row":
        m = rng.random(lead + (L_q, L_k)) < 0.6
        m[..., 0, :] = False  # query 0 sees nothing: must come out as zeros, not NaN
        return torch.tensor(m)
    if kind == "causal_bottom_right":  # Lq > Lk leaves the first rows fully masked
        return torch.tensor(np.tril(np.ones((L_q, L_k), dtype=bool), k=L_k - L_q))
    if kind == "keys_only":  # (1, L_k): broadcast over queries and batch
        m = rng.random((1, L_k)) < 0.7
        m[0, -1] = True
        return torch.tensor(m)
    raise ValueError(kind)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_kind", MASK_KINDS)
@pytest.mark.parametrize("lead, L_q, L_k, d_k, d_v", SDPA_SHAPES)
def test_sdpa_vs_oracle(lead, L_q, L_k, d_k, d_v, mask_kind, dtype):
    rng = rng_for("sdpa", lead, L_q, L_k, d_k, d_v, mask_kind)
    q = randn(rng, lead + (L_q, d_k), dtype)
    k = randn(rng, lead + (L_k, d_k), dtype)
    v = randn(rng, lead + (L_k, d_v), dtype)
    mask = _mask(mask_kind, rng, lead, L_q, L_k)
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    want_out, want_w = oracle.scaled_dot_product_attention(
        np64(q), np64(k), np64(v), None if mask is None else mask.numpy())
    close(w, want_w, dtype)
    close(out, want_out, dtype)
    assert torch.isfinite(out).all() and torch.isfinite(w).all()


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_huge_scores_no_overflow(dtype):
    """Integer q, k with d_k = 4: scores ~1e4, exact in float32, and /sqrt(4) is exact too."""
    rng = rng_for("huge")
    q = torch.tensor(rng.integers(40, 61, (2, 4, 4)), dtype=dtype)
    k = torch.tensor(rng.integers(40, 61, (2, 6, 4)), dtype=dtype)
    q[1, :, 3] = 2.0
    k[0, 1] = k[0, 0]  # exact ties
    k[1, 1] = k[1, 0]
    k[1, 1, 3] += 1.0  # scaled gap of exactly 1 between keys 0 and 1 of batch 1
    k[1, 2:] = k[1, 0] - 2.0  # ... and 2, 3 further below: a soft row at scores ~1e4
    k[1, 3:, 0] -= 1.0
    v = randn(rng, (2, 6, 3), dtype)
    out, w = ref.scaled_dot_product_attention(q, k, v)
    assert (ref.attention_scores(q, k).min() > 5e3).item()
    assert torch.isfinite(out).all() and torch.isfinite(w).all()
    want_out, want_w = oracle.scaled_dot_product_attention(np64(q), np64(k), np64(v))
    close(w, want_w, dtype)
    close(out, want_out, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_zero_scores_is_uniform_average(dtype):
    rng = rng_for("zeros")
    q = torch.zeros(2, 3, 6, dtype=dtype)
    k, v = randn(rng, (2, 5, 6), dtype), randn(rng, (2, 5, 4), dtype)
    out, w = ref.scaled_dot_product_attention(q, k, v)
    close(w, np.full((2, 3, 5), 0.2), dtype)
    close(out, np.broadcast_to(np64(v).mean(axis=1, keepdims=True), (2, 3, 4)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_fully_masked_rows_are_zero_not_nan(dtype):
    rng = rng_for("empty")
    q, k, v = randn(rng, (2, 4, 6), dtype), randn(rng, (2, 5, 6), dtype), randn(rng, (2, 5, 3), dtype)
    mask = torch.ones(2, 4, 5, dtype=torch.bool)
    mask[0, 2] = False
    mask[1] = False  # a whole batch element
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(out).any() and not torch.isnan(w).any()
    assert (w[0, 2] == 0).all() and (out[0, 2] == 0).all()
    assert (w[1] == 0).all() and (out[1] == 0).all()
    torch.testing.assert_close(w[0, [0, 1, 3]].sum(-1), torch.ones(3, dtype=dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa_with_padding_mask_length0_row(dtype):
    """Single-head scores (B, L_q, L_k) with padding_mask (B, 1, L_k); batch 1 has length 0."""
    rng = rng_for("pad")
    lengths = torch.tensor([3, 0, 5])
    B, L = 3, 5
    q, k, v = randn(rng, (B, L, 6), dtype), randn(rng, (B, L, 6), dtype), randn(rng, (B, L, 10), dtype)
    mask = ref.padding_mask(lengths, L)
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    want_out, want_w = oracle.scaled_dot_product_attention(
        np64(q), np64(k), np64(v), oracle.padding_mask([3, 0, 5], L))
    close(w, want_w, dtype)
    close(out, want_out, dtype)
    assert (out[1] == 0).all() and (w[1] == 0).all()
    assert (w[0, :, 3:] == 0).all()
    # the same padding mask, broadcast over heads (B, 1, 1, L), combined with causal
    qh, kh, vh = (t[:, None].expand(B, 2, L, t.size(-1)) for t in (q, k, v))
    mask4 = mask[:, None] & ref.causal_mask(L)
    out4, _ = ref.scaled_dot_product_attention(qh, kh, vh, mask4)
    want4, _ = oracle.scaled_dot_product_attention(np64(qh), np64(kh), np64(vh), mask4.numpy())
    close(out4, want4, dtype)


# ---------------------------------------------------------------------------------------------
# Against torch's F.scaled_dot_product_attention


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead, L_q, L_k, d_k, d_v", SDPA_SHAPES)
def test_sdpa_vs_torch_bool_mask(lead, L_q, L_k, d_k, d_v, dtype):
    rng = rng_for("torch-sdpa", lead, L_q, L_k, d_k, d_v)
    q = randn(rng, lead + (L_q, d_k), dtype)
    k = randn(rng, lead + (L_k, d_k), dtype)
    v = randn(rng, lead + (L_k, d_v), dtype)
    m = rng.random(lead + (L_q, L_k)) < 0.5
    m[..., np.arange(L_q), np.arange(L_q) % L_k] = True  # no fully masked row (torch gives NaN there)
    mask = torch.tensor(m)
    out, _ = ref.scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), **TOL[dtype])
    out, _ = ref.scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("lead, L, d", [
    pytest.param((1,), 1, 6, id="B1_L1"), pytest.param((2, 3), 7, 10, id="lead2x3_L7_dk10"),
    pytest.param((), 5, 6, id="noBatch_L5"),
])
def test_sdpa_vs_torch_is_causal(lead, L, d, dtype):
    rng = rng_for("torch-causal", lead, L, d)
    q, k, v = (randn(rng, lead + (L, d), dtype) for _ in range(3))
    out, _ = ref.scaled_dot_product_attention(q, k, v, ref.causal_mask(L))
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), **TOL[dtype])


# ---------------------------------------------------------------------------------------------
# Multi-head reshapes and repeat_kv

HEAD_SHAPES = [  # B, L, D, H
    pytest.param(1, 1, 6, 1, id="B1_L1_H1_dh6"),
    pytest.param(2, 5, 12, 2, id="B2_L5_H2_dh6"),
    pytest.param(3, 4, 30, 3, id="B3_L4_H3_dh10"),
    pytest.param(2, 3, 20, 4, id="B2_L3_H4_dh5"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("B, L, D, H", HEAD_SHAPES)
def test_split_merge_heads(B, L, D, H, dtype):
    x = randn(rng_for("heads", B, L, D, H), (B, L, D), dtype)
    s = ref.split_heads(x, H)
    close(s, oracle.split_heads(np64(x), H), dtype)
    close(ref.merge_heads(s), oracle.merge_heads(oracle.split_heads(np64(x), H)), dtype)
    torch.testing.assert_close(ref.merge_heads(s), x, rtol=0, atol=0)
    y = randn(rng_for("heads-y", B, L, D, H), (B, H, L, D // H), dtype)
    close(ref.merge_heads(y), oracle.merge_heads(np64(y)), dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("B, H_kv, L, d, n_rep", [
    pytest.param(1, 1, 1, 6, 1, id="B1_kv1_rep1"),
    pytest.param(2, 2, 5, 6, 3, id="B2_kv2_rep3"),
    pytest.param(2, 3, 4, 10, 2, id="B2_kv3_rep2"),
    pytest.param(1, 1, 3, 4, 4, id="MQA_kv1_rep4"),
])
def test_repeat_kv(B, H_kv, L, d, n_rep, dtype):
    x = randn(rng_for("rep", B, H_kv, L, d, n_rep), (B, H_kv, L, d), dtype)
    close(ref.repeat_kv(x, n_rep), oracle.repeat_kv(np64(x), n_rep), dtype)


# ---------------------------------------------------------------------------------------------
# MultiHeadAttention

MHA_SHAPES = [  # B, L, D, H, bias
    pytest.param(1, 1, 12, 2, True, id="B1_L1_D12_H2"),
    pytest.param(3, 7, 30, 3, True, id="B3_L7_D30_H3_dh10"),
    pytest.param(2, 5, 18, 3, True, id="B2_L5_D18_H3_dh6"),
    pytest.param(2, 6, 24, 4, False, id="B2_L6_D24_H4_dh6_noBias"),
]


def _mha(D, H, bias, dtype, seed):
    torch.manual_seed(seed)
    return ref.MultiHeadAttention(D, H, bias=bias).to(dtype)


def _mha_mask(kind, B, L, rng):
    if kind == "default_causal":
        return None
    if kind == "bidirectional":
        return torch.ones(L, L, dtype=torch.bool)
    if kind == "causal+padding_len0":  # (B, 1, L, L); batch 0 has length 0: every query masked
        lengths = torch.tensor([0] + list(rng.integers(1, L + 1, B - 1)))
        return ref.causal_mask(L) & oracle_padding(lengths, L)[:, None]
    raise ValueError(kind)


def oracle_padding(lengths, L):
    return torch.tensor(oracle.padding_mask(lengths.tolist(), L))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_kind", ["default_causal", "bidirectional", "causal+padding_len0"])
@pytest.mark.parametrize("B, L, D, H, bias", MHA_SHAPES)
def test_mha_vs_oracle(B, L, D, H, bias, mask_kind, dtype):
    rng = rng_for("mha", B, L, D, H, bias, mask_kind)
    m = _mha(D, H, bias, dtype, seed=B * 100 + L)
    x = randn(rng, (B, L, D), dtype)
    mask = _mha_mask(mask_kind, B, L, rng)
    got = m(x) if mask is None else m(x, mask)
    want = oracle.multi_head_attention(
        np64(x), np64(m.qkv.weight), None if m.qkv.bias is None else np64(m.qkv.bias),
        np64(m.out.weight), None if m.out.bias is None else np64(m.out.bias), H,
        None if mask is None else mask.numpy())
    close(got, want, dtype)
    assert torch.isfinite(got).all()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("padded", [False, True], ids=["causal", "causal+keyPadding"])
@pytest.mark.parametrize("B, L, D, H, bias", MHA_SHAPES)
def test_mha_vs_torch_multiheadattention(B, L, D, H, bias, padded, dtype):
    rng = rng_for("nn.MHA", B, L, D, H, bias, padded)
    ours = _mha(D, H, bias, dtype, seed=7 + L)
    theirs = nn.MultiheadAttention(D, H, bias=bias, batch_first=True, dtype=dtype)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(ours.qkv.weight)
        theirs.out_proj.weight.copy_(ours.out.weight)
        if bias:
            theirs.in_proj_bias.copy_(ours.qkv.bias)
            theirs.out_proj.bias.copy_(ours.out.bias)
    theirs.eval()
    x = randn(rng, (B, L, D), dtype)
    causal = ref.causal_mask(L)
    if padded:  # lengths >= 1 so no query is fully masked (torch would give NaN)
        lengths = torch.tensor(rng.integers(1, L + 1, B))
        keep = oracle_padding(lengths, L)  # (B, 1, L), True = real key
        got = ours(x, causal & keep[:, None])
        want, _ = theirs(x, x, x, attn_mask=~causal, key_padding_mask=~keep[:, 0], need_weights=False)
    else:
        got = ours(x)
        want, _ = theirs(x, x, x, attn_mask=~causal, need_weights=False)  # nn.MHA: True = NOT allowed
    torch.testing.assert_close(got, want, **TOL[dtype])


# ---------------------------------------------------------------------------------------------
# GroupedQueryAttention

GQA_SHAPES = [  # B, L, D, H, H_kv
    pytest.param(2, 5, 36, 6, 2, id="B2_L5_H6_kv2_dh6"),
    pytest.param(3, 4, 60, 6, 3, id="B3_L4_H6_kv3_dh10"),
    pytest.param(1, 1, 20, 2, 1, id="B1_L1_H2_kv1"),
    pytest.param(2, 6, 24, 4, 4, id="B2_L6_H4_kv4_isMHA"),
    pytest.param(1, 7, 24, 4, 1, id="B1_L7_H4_kv1_isMQA"),
]


def _gqa(cls, D, H, H_kv, dtype, seed):
    torch.manual_seed(seed)
    return cls(D, H, H_kv).to(dtype)


def _gqa_oracle(m, x, mask=None):
    return oracle.grouped_query_attention(
        np64(x), np64(m.q_proj.weight), np64(m.k_proj.weight), np64(m.v_proj.weight),
        np64(m.o_proj.weight), m.n_heads, m.n_kv_heads, mask)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mask_kind", ["default_causal", "causal+padding_len0"])
@pytest.mark.parametrize("B, L, D, H, H_kv", GQA_SHAPES)
def test_gqa_vs_oracle(B, L, D, H, H_kv, mask_kind, dtype):
    rng = rng_for("gqa", B, L, D, H, H_kv, mask_kind)
    m = _gqa(ref.GroupedQueryAttention, D, H, H_kv, dtype, seed=L * 10 + H_kv)
    assert m.k_proj.weight.shape == (H_kv * (D // H), D)  # the smaller K/V projections
    x = randn(rng, (B, L, D), dtype)
    if mask_kind == "default_causal":
        got, want = m(x), _gqa_oracle(m, x)
    else:
        lengths = torch.tensor([0] + list(rng.integers(1, L + 1, B - 1)))
        mask = ref.causal_mask(L) & oracle_padding(lengths, L)[:, None]
        got, want = m(x, mask), _gqa_oracle(m, x, mask.numpy())
    close(got, want, dtype)
    assert torch.isfinite(got).all()


def _torch_has_enable_gqa():
    try:
        q = torch.zeros(1, 2, 1, 2)
        F.scaled_dot_product_attention(q, q[:, :1], q[:, :1], enable_gqa=True)
        return True
    except (TypeError, RuntimeError):
        return False


@pytest.mark.skipif(not _torch_has_enable_gqa(), reason="this torch has no enable_gqa in F.scaled_dot_product_attention")
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("B, L, D, H, H_kv", GQA_SHAPES)
def test_gqa_vs_torch_enable_gqa(B, L, D, H, H_kv, dtype):
    m = _gqa(ref.GroupedQueryAttention, D, H, H_kv, dtype, seed=3 + L)
    x = randn(rng_for("gqa-torch", B, L, D, H, H_kv), (B, L, D), dtype)
    dh = D // H
    q = m.q_proj(x).view(B, L, H, dh).transpose(1, 2)
    k = m.k_proj(x).view(B, L, H_kv, dh).transpose(1, 2)
    v = m.v_proj(x).view(B, L, H_kv, dh).transpose(1, 2)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    want = m.o_proj(y.transpose(1, 2).reshape(B, L, D))
    torch.testing.assert_close(m(x), want, **TOL[dtype])


# ---------------------------------------------------------------------------------------------
# Causality: later tokens never change earlier outputs


@pytest.mark.parametrize("which", ["MHA", "GQA_H6_kv2", "CachedGQA_noCache"])
def test_causality(which):
    B, L, D = 2, 8, 36
    torch.manual_seed(11)
    m = {"MHA": lambda: ref.MultiHeadAttention(D, 6),
         "GQA_H6_kv2": lambda: ref.GroupedQueryAttention(D, 6, 2),
         "CachedGQA_noCache": lambda: ref.CachedGroupedQueryAttention(D, 6, 2)}[which]().double()
    rng = rng_for("causal", which)
    x = randn(rng, (B, L, D), F64)
    y = m(x)
    for t in (0, 3, 6):
        x2 = x.clone()
        x2[:, t + 1:] = randn(rng, (B, L - t - 1, D), F64)
        y2 = m(x2)
        torch.testing.assert_close(y2[:, : t + 1], y[:, : t + 1], rtol=0, atol=1e-13)
        assert (y2[:, t + 1:] - y[:, t + 1:]).abs().min() > 0  # later outputs do move


# ---------------------------------------------------------------------------------------------
# KV cache

CHUNKINGS = [
    pytest.param([9], id="whole"),
    pytest.param([1] * 9, id="token_by_token"),
    pytest.param([3, 1, 5], id="3+1+5"),
    pytest.param([4, 5], id="prefill4+5"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("B", [1, 2], ids=lambda b: f"B{b}")
@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_kv_cache_chunked_equals_full(chunks, B, dtype):
    D, H, H_kv, L = 36, 6, 2, sum(chunks)
    cached = _gqa(ref.CachedGroupedQueryAttention, D, H, H_kv, dtype, seed=5)
    full = ref.GroupedQueryAttention(D, H, H_kv).to(dtype)
    full.load_state_dict(cached.state_dict())
    x = randn(rng_for("kv", B), (B, L, D), dtype)
    cache = ref.KVCache(B, H_kv, D // H, max_len=12, dtype=dtype)
    assert tuple(cache.k.shape) == tuple(cache.v.shape) == (B, H_kv, 12, D // H)
    ptrs = (cache.k.data_ptr(), cache.v.data_ptr(), cache.k.untyped_storage().data_ptr())
    outs, start = [], 0
    want_chunks = oracle.cached_attention_outputs(
        np64(x), np64(cached.q_proj.weight), np64(cached.k_proj.weight), np64(cached.v_proj.weight),
        np64(cached.o_proj.weight), H, H_kv, chunks)
    with torch.no_grad():
        for size, want in zip(chunks, want_chunks):
            y = cached(x[:, start:start + size], cache)
            start += size
            assert len(cache) == start
            assert (cache.k.data_ptr(), cache.v.data_ptr(), cache.k.untyped_storage().data_ptr()) == ptrs
            close(y, want, dtype)
            outs.append(y)
        y_full = full(x)
    torch.testing.assert_close(torch.cat(outs, dim=1), y_full, **TOL[dtype])
    close(y_full, _gqa_oracle(full, x), dtype)
    np.testing.assert_allclose(np.concatenate(want_chunks, axis=1), _gqa_oracle(full, x), rtol=1e-12, atol=1e-13)


def test_kv_cache_update_returns_all_so_far_as_views():
    rng = rng_for("update")
    cache = ref.KVCache(2, 3, 4, max_len=6, dtype=F64)
    ks, vs = [], []
    for T in (2, 1, 3):
        k, v = randn(rng, (2, 3, T, 4), F64), randn(rng, (2, 3, T, 4), F64)
        ks.append(k), vs.append(v)
        k_all, v_all = cache.update(k, v)
        torch.testing.assert_close(k_all, torch.cat(ks, dim=2), rtol=0, atol=0)
        torch.testing.assert_close(v_all, torch.cat(vs, dim=2), rtol=0, atol=0)
        assert k_all.untyped_storage().data_ptr() == cache.k.untyped_storage().data_ptr()
        assert v_all.untyped_storage().data_ptr() == cache.v.untyped_storage().data_ptr()
    assert len(cache) == 6


def test_kv_cache_overflow_raises_and_leaves_cache_unchanged():
    D, H, H_kv, B = 24, 4, 2, 2
    m = _gqa(ref.CachedGroupedQueryAttention, D, H, H_kv, F64, seed=9)
    x = randn(rng_for("overflow"), (B, 5, D), F64)
    cache = ref.KVCache(B, H_kv, D // H, max_len=5, dtype=F64)
    with torch.no_grad():
        y1 = m(x[:, :3], cache)
        k_before, v_before = cache.k.clone(), cache.v.clone()
        with pytest.raises(ValueError):
            m(randn(rng_for("overflow2"), (B, 3, D), F64), cache)  # 3 + 3 > 5
        assert len(cache) == 3
        torch.testing.assert_close(cache.k, k_before, rtol=0, atol=0)
        torch.testing.assert_close(cache.v, v_before, rtol=0, atol=0)
        y2 = m(x[:, 3:], cache)  # exactly fills it: allowed, and still correct
        assert len(cache) == 5
        with pytest.raises(ValueError):
            cache.update(torch.zeros(B, H_kv, 1, D // H, dtype=F64), torch.zeros(B, H_kv, 1, D // H, dtype=F64))
        assert len(cache) == 5
    close(torch.cat([y1, y2], dim=1), _gqa_oracle(m, x), F64)
    fresh = ref.KVCache(1, 1, 2, max_len=2)
    with pytest.raises(ValueError):
        fresh.update(torch.zeros(1, 1, 3, 2), torch.zeros(1, 1, 3, 2))
    assert len(fresh) == 0


def test_kv_cache_reset_and_len():
    D, H, H_kv, B = 24, 4, 2, 1
    m = _gqa(ref.CachedGroupedQueryAttention, D, H, H_kv, F64, seed=13)
    rng = rng_for("reset")
    cache = ref.KVCache(B, H_kv, D // H, max_len=8, dtype=F64)
    assert len(cache) == 0
    ptr = cache.k.data_ptr()
    with torch.no_grad():
        m(randn(rng, (B, 6, D), F64), cache)
        assert len(cache) == 6
        cache.reset()
        assert len(cache) == 0 and cache.k.data_ptr() == ptr
        x = randn(rng, (B, 7, D), F64)  # a new sequence, longer than 8 - 6: reset freed the room
        ys = [m(x[:, :2], cache), m(x[:, 2:3], cache), m(x[:, 3:], cache)]
        assert len(cache) == 7
    close(torch.cat(ys, dim=1), _gqa_oracle(m, x), F64)  # nothing of the old sequence leaks in


@pytest.mark.parametrize("dtype", DTYPES)
def test_cached_gqa_without_cache_equals_gqa(dtype):
    m = _gqa(ref.CachedGroupedQueryAttention, 36, 6, 3, dtype, seed=21)
    x = randn(rng_for("nocache"), (2, 5, 36), dtype)
    close(m(x), _gqa_oracle(m, x), dtype)


@pytest.mark.parametrize("args, expected", [
    pytest.param((32, 32, 128, 4096), 2_147_483_648, id="llama2_7B_4096tok_2GiB"),
    pytest.param((32, 32, 128, 1), 524_288, id="llama2_7B_per_token_512KiB"),
    pytest.param((32, 32, 128, 4096, 32), 68_719_476_736, id="llama2_7B_32users_64GiB"),
])
def test_kv_cache_bytes_chapter_figures(args, expected):
    assert ref.kv_cache_bytes(*args) == expected == oracle.kv_cache_bytes(*args)


@pytest.mark.parametrize("args", [(1, 1, 1, 1), (2, 3, 10, 7, 3, 4), (80, 8, 128, 4096, 1, 2), (4, 2, 6, 0)],
                         ids=lambda a: "-".join(map(str, a)))
def test_kv_cache_bytes_vs_oracle(args):
    assert ref.kv_cache_bytes(*args) == oracle.kv_cache_bytes(*args)


def test_kv_cache_bytes_gqa_saving():
    """Llama-2 70B style: 64 query heads, 8 KV heads -> the cache is 8x smaller."""
    assert ref.kv_cache_bytes(80, 64, 128, 4096) == 8 * ref.kv_cache_bytes(80, 8, 128, 4096)


# ---------------------------------------------------------------------------------------------
# Gradients (finite differences, float64)


def _grad_mask(kind):
    if kind == "none":
        return None
    m = torch.tensor([[[1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 1]]], dtype=torch.bool).expand(2, 3, 4)
    return m  # query 1 fully masked in both batch elements


@pytest.mark.parametrize("mask_kind", ["none", "with_fully_masked_row"])
def test_sdpa_gradcheck(mask_kind):
    rng = rng_for("grad-sdpa", mask_kind)
    q, k, v = (randn(rng, s, F64).requires_grad_() for s in ((2, 3, 6), (2, 4, 6), (2, 4, 5)))
    mask = _grad_mask(mask_kind)
    assert torch.autograd.gradcheck(lambda q, k, v: ref.scaled_dot_product_attention(q, k, v, mask), (q, k, v))
    out, w = ref.scaled_dot_product_attention(q, k, v, mask)
    (out.pow(2).sum() + w.pow(2).sum()).backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all(), "NaN/inf gradient"
    if mask is not None:
        assert (q.grad[:, 1] == 0).all()  # a fully masked query's output is constant 0


def test_softmax_gradcheck_with_neg_inf():
    x = torch.tensor([[0.5, -np.inf, 1.0], [-np.inf] * 3, [1e4, 1e4 - 1, -3.0]], dtype=F64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: ref.softmax(x, dim=-1), (x,))
    ref.softmax(x, dim=-1).pow(2).sum().backward()
    assert torch.isfinite(x.grad).all() and (x.grad[1] == 0).all()


def _module_gradcheck(m, x, mask):
    names = [n for n, _ in m.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_() for p in m.parameters())

    def f(x, *ps):
        out = functional_call(m, dict(zip(names, ps)), (x,) if mask is None else (x, mask))
        return out

    assert torch.autograd.gradcheck(f, (x.requires_grad_(),) + params, fast_mode=True)
    f(x, *params).pow(2).sum().backward()
    for t in (x,) + params:
        assert torch.isfinite(t.grad).all(), "NaN/inf gradient"


@pytest.mark.parametrize("mask_kind", ["default_causal", "padding_len0_row"])
@pytest.mark.parametrize("which", ["MHA", "GQA_H4_kv2"])
def test_module_gradcheck(which, mask_kind):
    torch.manual_seed(17)
    m = (ref.MultiHeadAttention(8, 2) if which == "MHA" else ref.GroupedQueryAttention(8, 4, 2)).double()
    x = randn(rng_for("grad-mod", which, mask_kind), (2, 3, 8), F64)
    mask = None
    if mask_kind == "padding_len0_row":
        mask = ref.causal_mask(3) & oracle_padding(torch.tensor([0, 2]), 3)[:, None]  # batch 0: all masked
    _module_gradcheck(m, x, mask)


# ---------------------------------------------------------------------------------------------
# The oracle itself: right on hand-worked numbers, and able to tell common mistakes apart


def test_oracle_hand_worked():
    q = np.array([[1.0, 0.0], [0.0, 2.0]])
    k = np.array([[2.0, 0.0], [0.0, 1.0]])
    v = np.array([[10.0], [20.0]])
    out, w = oracle.scaled_dot_product_attention(q, k, v, oracle.causal_mask(2))
    # query 0 sees key 0 only; query 1: scores (0, 2)/sqrt(2) -> weights 1/(1+e^√2), e^√2/(1+e^√2)
    b = np.exp(np.sqrt(2)) / (1 + np.exp(np.sqrt(2)))
    np.testing.assert_allclose(w, [[1, 0], [1 - b, b]], rtol=1e-14)
    np.testing.assert_allclose(out, [[10.0], [10 + 10 * b]], rtol=1e-14)
    np.testing.assert_array_equal(oracle.repeat_kv(np.arange(2.0).reshape(1, 2, 1, 1), 2).ravel(), [0, 0, 1, 1])
    np.testing.assert_array_equal(oracle.split_heads(np.arange(4.0).reshape(1, 1, 4), 2).ravel(), [0, 1, 2, 3])
    assert oracle.split_heads(np.arange(4.0).reshape(1, 1, 4), 2).shape == (1, 2, 1, 2)


def _differs(a, b):
    return not np.allclose(a, b, rtol=1e-6, atol=1e-8)


def test_oracle_catches_classic_mistakes():
    """The comparisons above can fail: typical wrong answers are far outside every tolerance."""
    rng = rng_for("mistakes")
    q, k, v = (torch.tensor(rng.standard_normal((2, 4, 6))) for _ in range(3))
    want, _ = oracle.scaled_dot_product_attention(q.numpy(), k.numpy(), v.numpy(), oracle.causal_mask(4))
    no_scale = torch.softmax((q @ k.mT).masked_fill(~ref.causal_mask(4), -np.inf), -1) @ v
    by_dk = torch.softmax((q @ k.mT / 6).masked_fill(~ref.causal_mask(4), -np.inf), -1) @ v
    upper = torch.softmax((q @ k.mT / 6**0.5).masked_fill(ref.causal_mask(4).mT.logical_not(), -np.inf), -1) @ v
    wrong_axis = torch.softmax((q @ k.mT / 6**0.5).masked_fill(~ref.causal_mask(4), -np.inf), -2).nan_to_num() @ v
    for wrong in (no_scale, by_dk, upper, wrong_axis):
        assert _differs(wrong.numpy(), want)
    x = torch.tensor(rng.standard_normal((2, 3, 12)))
    assert _differs(x.view(2, 4, 3, 3).numpy(), oracle.split_heads(x.numpy(), 4))  # view without transpose
    kv = torch.tensor(rng.standard_normal((1, 2, 3, 4)))
    assert _differs(kv.repeat(1, 3, 1, 1).numpy(), oracle.repeat_kv(kv.numpy(), 3))  # repeat, not interleave
    s = torch.tensor([[1e4, 1e4 - 1.0]], dtype=F32)
    assert torch.isnan(s.exp() / s.exp().sum(-1, keepdim=True)).all()  # the unstable softmax really fails
    assert not np.isnan(oracle.softmax(s.numpy())).any()


# ---------------------------------------------------------------------------------------------
# The cost of attention, and attention without the (L, L) matrix


@pytest.mark.parametrize("L, d_model", [(1, 1), (10, 64), (1024, 768), (131072, 4096)])
def test_attention_cost_vs_oracle(L, d_model):
    assert ref.attention_cost(L, d_model) == oracle.attention_cost(L, d_model)


def test_cost_chapter_figures():
    """The crossover at L = 6d: 4,608 tokens for GPT-2 small, 24,576 for d = 4096 ("about 25,000")."""
    assert ref.crossover_length(768) == oracle.crossover_length(768) == 4608
    assert ref.crossover_length(4096) == oracle.crossover_length(4096) == 24576
    cost = ref.attention_cost(4608, 768)
    assert cost["core_attention"] == cost["projections"] + cost["feed_forward"]
    longer = ref.attention_cost(2 * 4608, 768)  # double the context: the core quadruples, the rest doubles
    assert longer["core_attention"] == 4 * cost["core_attention"] and longer["projections"] == 2 * cost["projections"]


ONLINE_BLOCKS = [1, 3, 4, 12, 20]  # divides 12, leaves a shorter last block, one block, larger than the row


@pytest.mark.parametrize("block", ONLINE_BLOCKS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_online_softmax_vs_oracle(block, dtype):
    rng = rng_for("online", block)
    x = randn(rng, (2, 5, 12), F64, scale=4.0)
    x[0, 1] = -np.inf  # a row of nothing: zeros
    x[0, 2, :7] = -np.inf  # the running max stays -inf over whole blocks
    x[1, 3] += 1e4  # e^1e4 overflows unless shifted
    x[1, 4] = x[1, 4].sort().values * 100  # the max grows in every block
    x = x.to(dtype)
    close(ref.online_softmax(x, block), oracle.softmax(np64(x)), dtype)


TILED_LENGTHS = [  # L_q, L_k: the same, fewer queries (a decode step), more queries (some see no key)
    pytest.param(9, 9, id="Lq=Lk"), pytest.param(3, 10, id="Lq<Lk"), pytest.param(8, 5, id="Lq>Lk"),
]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("block", [1, 2, 4, 16])
@pytest.mark.parametrize("L_q, L_k", TILED_LENGTHS)
def test_tiled_attention_vs_oracle(L_q, L_k, block, causal):
    rng = rng_for("tiled", L_q, L_k, block, causal)
    q, k, v = randn(rng, (2, 3, L_q, 6), F64), randn(rng, (2, 3, L_k, 6), F64), randn(rng, (2, 3, L_k, 4), F64)
    got = ref.tiled_attention(q, k, v, block, causal=causal)
    close(got, oracle.tiled_attention(np64(q), np64(k), np64(v), block, causal), F64)
    if causal and L_q > L_k:
        assert (got[..., :L_q - L_k, :] == 0).all()  # positions before the first key see nothing


@pytest.mark.parametrize("L_q, L_k", [(9, 9), (3, 10)])
def test_tiled_attention_vs_torch(L_q, L_k):
    """Against torch's fused attention, with the causal mask aligned to the last query (as the KV cache)."""
    rng = rng_for("tiled-torch", L_q, L_k)
    q, k, v = randn(rng, (2, 3, L_q, 8), F64), randn(rng, (2, 3, L_k, 8), F64), randn(rng, (2, 3, L_k, 5), F64)
    mask = torch.ones(L_q, L_k, dtype=torch.bool).tril(diagonal=L_k - L_q)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(ref.tiled_attention(q, k, v, 4, causal=True), expected, **TOL[F64])
    if L_q == L_k:
        torch.testing.assert_close(expected, F.scaled_dot_product_attention(q, k, v, is_causal=True), **TOL[F64])


def test_tiled_attention_huge_and_tiny_scores():
    """Scores of ±1e4, and scores all below -1000 (where a running max started at 0 underflows)."""
    rng = rng_for("tiled-extreme")
    q, k, v = randn(rng, (2, 7, 5), F64, 60.0), randn(rng, (2, 7, 5), F64, 60.0), randn(rng, (2, 7, 3), F64)
    expected = oracle.tiled_attention(np64(q), np64(k), np64(v), 3, True)
    close(ref.tiled_attention(q, k, v, 3, causal=True), expected, F64)
    q, k = -30 * (q.abs() / 60 + 1), 30 * (k.abs() / 60 + 1)
    close(ref.tiled_attention(q, k, v, 3), oracle.tiled_attention(np64(q), np64(k), np64(v), 3), F64)
