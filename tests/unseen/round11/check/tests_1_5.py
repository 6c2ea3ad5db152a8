import math
import torch
import ref as R
from harness import *  # noqa


# ---------------------------------------------------------------- exercise 1
def p_args(xshape, dm, dk, dv, seed=0):
    return [rnd(*xshape, dm, seed=seed), rnd(dm, dk, seed=seed + 1), rnd(dm, dk, seed=seed + 2), rnd(dm, dv, seed=seed + 3)]


def f_args(xshape, dm, d, seed=0):
    return [rnd(*xshape, dm, seed=seed), rnd(dm, 3 * d, seed=seed + 1)]


@test(1)
def project_basic(M):
    call_cmp(M.project, R.project, p_args((5,), 6, 4, 3))


@test(1)
def project_square(M):
    call_cmp(M.project, R.project, p_args((5,), 4, 4, 4))


@test(1)
def project_batch(M):
    call_cmp(M.project, R.project, p_args((2, 5), 6, 4, 3))
    call_cmp(M.project, R.project, p_args((2, 3, 5), 6, 4, 3))


@test(1)
def project_noncontig(M):
    a = p_args((5, 2), 6, 4, 3)
    a[0] = a[0].transpose(0, 1)
    call_cmp(M.project, R.project, a)


@test(1)
def project_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.project, R.project, p_args((2, 5), 6, 4, 3), dt)


@test(1)
def project_grad(M):
    grad_cmp(M.project, R.project, p_args((2, 5), 6, 4, 3), [0, 1, 2, 3])


@test(1)
def project_unchanged(M):
    unchanged_call(M.project, p_args((2, 5), 6, 4, 3))


@test(1)
def project_meta(M):
    meta_call(M.project, p_args((2, 5), 6, 4, 3))


@test(1)
def fused_basic(M):
    call_cmp(M.fused_project, R.fused_project, f_args((5,), 6, 4))
    call_cmp(M.fused_project, R.fused_project, f_args((5,), 4, 6))


@test(1)
def fused_square(M):
    call_cmp(M.fused_project, R.fused_project, f_args((5,), 4, 4))


@test(1)
def fused_batch(M):
    call_cmp(M.fused_project, R.fused_project, f_args((2, 3, 5), 6, 4))


@test(1)
def fused_noncontig(M):
    a = f_args((5, 2), 6, 4)
    a[0] = a[0].transpose(0, 1)
    call_cmp(M.fused_project, R.fused_project, a)


@test(1)
def fused_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.fused_project, R.fused_project, f_args((2, 5), 6, 4), dt)


@test(1)
def fused_grad(M):
    grad_cmp(M.fused_project, R.fused_project, f_args((2, 5), 6, 4), [0, 1])


@test(1)
def fused_unchanged(M):
    unchanged_call(M.fused_project, f_args((2, 5), 6, 4))


@test(1)
def fused_meta(M):
    meta_call(M.fused_project, f_args((2, 5), 6, 4))


# ---------------------------------------------------------------- exercise 2
def qk(lead, Lq, Lk, d, seed=0):
    return [rnd(*lead, Lq, d, seed=seed), rnd(*lead, Lk, d, seed=seed + 1)]


@test(2)
def scores_basic(M):
    call_cmp(M.attention_scores, R.attention_scores, qk((), 4, 6, 5))


@test(2)
def scores_square(M):
    call_cmp(M.attention_scores, R.attention_scores, qk((), 5, 5, 3))


@test(2)
def scores_batch3(M):
    call_cmp(M.attention_scores, R.attention_scores, qk((2,), 4, 6, 5))


@test(2)
def scores_batch4(M):
    call_cmp(M.attention_scores, R.attention_scores, qk((2, 3), 4, 6, 5))


@test(2)
def scores_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.attention_scores, R.attention_scores, qk((2,), 4, 6, 5), dt)


@test(2)
def scores_grad(M):
    grad_cmp(M.attention_scores, R.attention_scores, qk((2,), 4, 6, 5), [0, 1])


@test(2)
def scores_unchanged(M):
    unchanged_call(M.attention_scores, qk((2,), 4, 6, 5))


@test(2)
def scores_meta(M):
    meta_call(M.attention_scores, qk((2,), 4, 6, 5))


# ---------------------------------------------------------------- exercise 3
@test(3)
def scale_values(M):
    for dk in (1, 2, 3, 4, 8, 64):
        call_cmp(M.scale_scores, R.scale_scores, [rnd(2, 4, 5, scale=3), dk])


@test(3)
def scale_new_tensor(M):
    for dk in (1, 8):
        s = rnd(4, 5)
        out = M.scale_scores(s, dk)
        assert out is not s and out.data_ptr() != s.data_ptr(), f"d_k={dk}: returned the input tensor itself (or a view of it)"


@test(3)
def scale_unchanged(M):
    unchanged_call(M.scale_scores, [rnd(4, 5), 8])


@test(3)
def scale_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.scale_scores, R.scale_scores, [rnd(2, 4, 5, scale=3), 8], dt)


@test(3)
def scale_grad(M):
    grad_cmp(M.scale_scores, R.scale_scores, [rnd(2, 4, 5), 8], [0])


@test(3)
def scale_meta(M):
    meta_call(M.scale_scores, [rnd(2, 4, 5), 8])


@test(3)
def scaled_basic(M):
    call_cmp(M.scaled_scores, R.scaled_scores, qk((), 4, 6, 5))
    call_cmp(M.scaled_scores, R.scaled_scores, qk((), 3, 7, 8))


@test(3)
def scaled_batch(M):
    call_cmp(M.scaled_scores, R.scaled_scores, qk((2,), 4, 6, 8))
    call_cmp(M.scaled_scores, R.scaled_scores, qk((2, 3), 4, 6, 5))


@test(3)
def scaled_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.scaled_scores, R.scaled_scores, qk((2,), 4, 6, 8), dt)


@test(3)
def scaled_grad(M):
    grad_cmp(M.scaled_scores, R.scaled_scores, qk((2,), 4, 6, 8), [0, 1])


@test(3)
def scaled_unchanged(M):
    unchanged_call(M.scaled_scores, qk((2,), 4, 6, 8))


@test(3)
def scaled_meta(M):
    meta_call(M.scaled_scores, qk((2,), 4, 6, 8))


# ---------------------------------------------------------------- exercise 4
@test(4)
def causal_values(M):
    for L in (1, 2, 3, 6):
        check_out(M.causal_mask(L), R.causal_mask(L), what=f"causal_mask({L})")


@test(4)
def causal_meta(M):
    out = M.causal_mask(4, device="meta")
    assert out.device.type == "meta" and out.dtype == torch.bool and tuple(out.shape) == (4, 4), f"got {out.device} {out.dtype}"
    out = M.causal_mask(4, torch.device("meta"))
    assert out.device.type == "meta"


def am_args(seed=0):
    s = rnd(2, 4, 5, seed=seed)
    pad = R.padding_mask(torch.tensor([5, 0]), 5)           # (2, 1, 5): sequence 1 all padding
    return s, pad


@test(4)
def apply_values(M):
    s, pad = am_args()
    call_cmp(M.apply_mask, R.apply_mask, [s, pad])
    call_cmp(M.apply_mask, R.apply_mask, [rnd(3, 4, 4, seed=3), R.causal_mask(4)])
    call_cmp(M.apply_mask, R.apply_mask, [rnd(4, 6, seed=4), torch.rand(4, 6, generator=torch.Generator().manual_seed(1)) > 0.4])


@test(4)
def apply_dtypes(M):
    s, pad = am_args()
    for dt in (F32, F16, BF16):
        call_cmp(M.apply_mask, R.apply_mask, [s, pad], dt)


@test(4)
def apply_unchanged(M):
    s, pad = am_args()
    snap = snapshot([s, pad])
    out = M.apply_mask(s, pad)
    assert_unchanged([s, pad], snap)
    assert out.data_ptr() != s.data_ptr(), "returned the input tensor"


@test(4)
def apply_grad(M):
    s, pad = am_args()
    grad_cmp(M.apply_mask, R.apply_mask, [s, pad], [0])


@test(4)
def apply_meta(M):
    s, pad = am_args()
    meta_call(M.apply_mask, [s, pad])


@test(4)
def padding_values(M):
    for lengths, L in (([3, 5, 0, 1], 5), ([2, 2], 4), ([1], 1), ([0, 3], 3)):
        lt = torch.tensor(lengths, dtype=torch.long)
        check_out(M.padding_mask(lt, L), R.padding_mask(lt, L), what=f"padding_mask({lengths}, {L})")


@test(4)
def padding_unchanged(M):
    lt = torch.tensor([3, 5, 0])
    unchanged_call(M.padding_mask, [lt, 5])


@test(4)
def padding_meta(M):
    out = M.padding_mask(torch.tensor([3, 5, 0], device="meta"), 6)
    assert out.device.type == "meta" and tuple(out.shape) == (3, 1, 6)


# ---------------------------------------------------------------- exercise 5
@test(5)
def softmax_basic(M):
    call_cmp(M.softmax, R.softmax, [rnd(4, 6, scale=3)])
    call_cmp(M.softmax, R.softmax, [rnd(2, 3, 5, scale=3)], dim=-1)


@test(5)
def softmax_1d(M):
    call_cmp(M.softmax, R.softmax, [rnd(7, scale=2)])


@test(5)
def softmax_other_dim(M):
    x = rnd(3, 4, 5, scale=2)
    for dim in (0, 1, -2):
        call_cmp(M.softmax, R.softmax, [x], dim=dim)


def special_rows():
    x = rnd(5, 6, scale=2)
    x[0] = torch.tensor([1e4, -1e4, 1e4 - 1, 0, 5, -5])
    x[1, ::2] = -math.inf
    x[2] = -math.inf
    x[3] = torch.tensor([-1e4, -1e4 + 3, -1e4, -1e4, -1e4 + 1, -1e4])
    return x


@test(5)
def softmax_huge(M):
    x = rnd(3, 6, scale=2)
    x[0] = torch.tensor([1e4, -1e4, 1e4 - 1, 0, 5, -5])
    x[1] = torch.tensor([-1e4, -1e4 + 3, -1e4, -1e4, -1e4 + 1, -1e4])
    for dt in (F64, F32):
        call_cmp(M.softmax, R.softmax, [x], dt)


@test(5)
def softmax_partial_neginf(M):
    x = rnd(3, 6)
    x[1, ::2] = -math.inf
    x[0, 0] = -math.inf
    call_cmp(M.softmax, R.softmax, [x])


@test(5)
def softmax_all_neginf(M):
    x = rnd(3, 6)
    x[2] = -math.inf
    call_cmp(M.softmax, R.softmax, [x])
    call_cmp(M.softmax, R.softmax, [torch.full((2, 3), -math.inf, dtype=F64)], dim=0)


@test(5)
def softmax_grad(M):
    grad_cmp(M.softmax, R.softmax, [rnd(4, 6, scale=2)], [0])
    grad_cmp(M.softmax, R.softmax, [rnd(3, 4, 5)], [0], dim=1)


@test(5)
def softmax_all_neginf_grad(M):
    x = rnd(3, 6)
    x[1, ::2] = -math.inf
    x[2] = -math.inf
    grad_cmp(M.softmax, R.softmax, [x], [0])


@test(5)
def softmax_dtypes(M):
    x = special_rows()
    x[0] = torch.tensor([9000.0, -9000, 8999, 0, 5, -5])   # fits in float16
    x[3] = torch.tensor([-9000.0, -8997, -9000, -9000, -8999, -9000])
    for dt in (F32, F16, BF16):
        call_cmp(M.softmax, R.softmax, [x], dt)


@test(5)
def softmax_unchanged(M):
    unchanged_call(M.softmax, [special_rows()])


@test(5)
def softmax_meta(M):
    meta_call(M.softmax, [rnd(3, 4)])


def qkv(lead, Lq, Lk, dk, dv, seed=0):
    return [rnd(*lead, Lq, dk, seed=seed), rnd(*lead, Lk, dk, seed=seed + 1), rnd(*lead, Lk, dv, seed=seed + 2)]


@test(5)
def sdpa_nomask(M):
    call_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((), 4, 6, 5, 5))
    call_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((2,), 5, 5, 4, 4))


@test(5)
def sdpa_dv_neq_dk(M):
    call_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((2,), 4, 6, 4, 9))


@test(5)
def sdpa_mask(M):
    a = qkv((2,), 5, 5, 4, 4)
    call_cmp(M.scaled_dot_product_attention, R.sdpa, a + [R.causal_mask(5)])
    m = torch.rand(2, 5, 5, generator=torch.Generator().manual_seed(2)) > 0.5
    m[..., 0] = True
    call_cmp(M.scaled_dot_product_attention, R.sdpa, a + [m])


def fm_args():
    a = qkv((3,), 4, 4, 4, 3)
    pad = R.padding_mask(torch.tensor([4, 0, 2]), 4)       # sequence 1: every query fully masked
    return a + [pad]


@test(5)
def sdpa_fully_masked(M):
    call_cmp(M.scaled_dot_product_attention, R.sdpa, fm_args())


@test(5)
def sdpa_fully_masked_grad(M):
    grad_cmp(M.scaled_dot_product_attention, R.sdpa, fm_args(), [0, 1, 2])


@test(5)
def sdpa_grad(M):
    grad_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((2,), 4, 6, 4, 3) + [None], [0, 1, 2])
    grad_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((2,), 5, 5, 4, 3) + [R.causal_mask(5)], [0, 1, 2])


@test(5)
def sdpa_batch(M):
    call_cmp(M.scaled_dot_product_attention, R.sdpa, qkv((2, 3), 5, 5, 4, 6) + [R.causal_mask(5)])


@test(5)
def sdpa_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.scaled_dot_product_attention, R.sdpa, fm_args(), dt)


@test(5)
def sdpa_unchanged(M):
    unchanged_call(M.scaled_dot_product_attention, fm_args())


@test(5)
def sdpa_meta(M):
    meta_call(M.scaled_dot_product_attention, fm_args())
