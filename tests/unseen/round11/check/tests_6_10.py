import math
import torch
import ref as R
from harness import *  # noqa


# ---------------------------------------------------------------- exercise 6
def ref_split(x, H):
    B, L, D = x.shape
    return torch.stack([x[:, :, h * (D // H):(h + 1) * (D // H)] for h in range(H)], dim=1)


def ref_merge(x):
    return torch.cat([x[:, h] for h in range(x.shape[1])], dim=-1)


@test(6)
def split_values(M):
    for H in (1, 3, 4, 12):
        call_cmp(M.split_heads, ref_split, [rnd(2, 5, 12), H])
    big = rnd(2, 5, 36)
    call_cmp(M.split_heads, ref_split, [big[..., 12:24], 3])     # a slice, as qkv(x).split gives


@test(6)
def split_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.split_heads, ref_split, [rnd(2, 5, 12), 3], dt)


@test(6)
def split_unchanged(M):
    unchanged_call(M.split_heads, [rnd(2, 5, 12), 3])


@test(6)
def split_meta(M):
    meta_call(M.split_heads, [rnd(2, 5, 12), 3])


@test(6)
def merge_values(M):
    call_cmp(M.merge_heads, ref_merge, [rnd(2, 3, 5, 4)])
    call_cmp(M.merge_heads, ref_merge, [rnd(2, 5, 3, 4).transpose(1, 2)])
    call_cmp(M.merge_heads, ref_merge, [rnd(1, 1, 5, 4)])


@test(6)
def merge_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.merge_heads, ref_merge, [rnd(2, 5, 3, 4).transpose(1, 2)], dt)


@test(6)
def merge_unchanged(M):
    unchanged_call(M.merge_heads, [rnd(2, 5, 3, 4).transpose(1, 2)])


def mha_sd(D, bias, seed=0):
    sd = {"qkv.weight": rnd(3 * D, D, seed=seed, scale=0.4), "out.weight": rnd(D, D, seed=seed + 1, scale=0.4)}
    if bias:
        sd["qkv.bias"] = rnd(3 * D, seed=seed + 2, scale=0.3)
        sd["out.bias"] = rnd(D, seed=seed + 3, scale=0.3)
    return sd


def make_mha(M, D, H, bias=True, dtype=F64):
    m = M.MultiHeadAttention(D, H, bias=bias).to(dtype)
    m.load_state_dict(mha_sd(D, bias))
    return m


def mha_ref(D, H, bias, dtype=F64):
    sd = {k: v.to(dtype).to(F64) for k, v in mha_sd(D, bias).items()}
    return lambda x, mask=None: R.mha(x, sd["qkv.weight"], sd.get("qkv.bias"), sd["out.weight"], sd.get("out.bias"), H, mask)


def mha_cmp(M, D, H, bias, x, mask=None, dtype=F64):
    m = make_mha(M, D, H, bias, dtype)
    got = m(x.to(dtype), mask)
    exp = mha_ref(D, H, bias, dtype)(d64(x.to(dtype)), mask)
    check_out(got, exp, dtype)


@test(6)
def mha_params(M):
    m = M.MultiHeadAttention(12, 3)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes == {"qkv.weight": (36, 12), "qkv.bias": (36,), "out.weight": (12, 12), "out.bias": (12,)}, shapes


@test(6)
def mha_params_nobias(M):
    m = M.MultiHeadAttention(12, 3, bias=False)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes == {"qkv.weight": (36, 12), "out.weight": (12, 12)}, shapes


@test(6)
def mha_causal(M):
    for H in (3, 4):
        mha_cmp(M, 12, H, True, rnd(2, 5, 12, seed=7))
    mha_cmp(M, 12, 3, False, rnd(2, 5, 12, seed=7))


@test(6)
def mha_full_mask(M):
    x = rnd(2, 5, 12, seed=7)
    mha_cmp(M, 12, 3, True, x, torch.ones(5, 5, dtype=torch.bool))
    m = torch.rand(2, 1, 5, 5, generator=torch.Generator().manual_seed(3)) > 0.5
    m[..., 0] = True
    mha_cmp(M, 12, 3, True, x, m)


@test(6)
def mha_padding(M):
    x = rnd(3, 5, 12, seed=7)
    pad = R.padding_mask(torch.tensor([5, 0, 2]), 5)[:, None]      # (B, 1, 1, L)
    mha_cmp(M, 12, 3, True, x, pad)
    m = make_mha(M, 12, 3, True)
    out = m(x, pad)
    assert torch.allclose(out[1], m.out.bias.expand(5, 12)), "all-padding sequence should give out's bias"


@test(6)
def mha_grad(M):
    x = rnd(3, 5, 12, seed=7)
    pad = R.padding_mask(torch.tensor([5, 0, 2]), 5)[:, None]
    for mask in (None, pad):
        m = make_mha(M, 12, 3, True)
        xg = x.clone().requires_grad_(True)
        loss = loss_of(m(xg, mask))
        names = ["qkv.weight", "qkv.bias", "out.weight", "out.bias"]
        params = dict(m.named_parameters())
        got = torch.autograd.grad(loss, [xg] + [params[n] for n in names], allow_unused=True)
        sd = {k: v.clone().requires_grad_(True) for k, v in mha_sd(12, True).items()}
        xr = x.clone().requires_grad_(True)
        lr = loss_of(R.mha(xr, sd["qkv.weight"], sd["qkv.bias"], sd["out.weight"], sd["out.bias"], 3, mask))
        exp = torch.autograd.grad(lr, [xr] + [sd[n] for n in names])
        for n, g, e in zip(["x"] + names, got, exp):
            assert g is not None, f"no gradient for {n}"
            assert torch.isfinite(g).all(), f"NaN/inf gradient for {n}"
            check_out(g, e, what=f"grad {n}")


@test(6)
def mha_dtypes(M):
    for dt in (F32, F16, BF16):
        mha_cmp(M, 12, 3, True, rnd(2, 5, 12, seed=7), None, dt)


@test(6)
def mha_unchanged(M):
    m = make_mha(M, 12, 3)
    x = rnd(2, 5, 12)
    unchanged_call(m, [x])


@test(6)
def mha_meta(M):
    m = make_mha(M, 12, 3).to("meta")
    out = m(torch.empty(2, 5, 12, device="meta", dtype=F64))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 5, 12)


# ---------------------------------------------------------------- exercise 7
@test(7)
def repeat_values(M):
    x = rnd(2, 2, 5, 4)
    call_cmp(M.repeat_kv, R.repeat_kv, [x, 3])
    call_cmp(M.repeat_kv, R.repeat_kv, [x, 1])
    call_cmp(M.repeat_kv, R.repeat_kv, [rnd(1, 3, 2, 4), 2])


@test(7)
def repeat_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.repeat_kv, R.repeat_kv, [rnd(2, 2, 5, 4), 3], dt)


@test(7)
def repeat_grad(M):
    grad_cmp(M.repeat_kv, R.repeat_kv, [rnd(2, 2, 5, 4), 3], [0])


@test(7)
def repeat_unchanged(M):
    unchanged_call(M.repeat_kv, [rnd(2, 2, 5, 4), 3])


@test(7)
def repeat_meta(M):
    out = meta_call(M.repeat_kv, [rnd(2, 2, 5, 4), 3])
    assert tuple(out.shape) == (2, 6, 5, 4)


def gqa_sd(D, H, Hkv, seed=0):
    dh = D // H
    return {"q_proj.weight": rnd(H * dh, D, seed=seed, scale=0.4), "k_proj.weight": rnd(Hkv * dh, D, seed=seed + 1, scale=0.4),
            "v_proj.weight": rnd(Hkv * dh, D, seed=seed + 2, scale=0.4), "o_proj.weight": rnd(D, H * dh, seed=seed + 3, scale=0.4)}


def make_gqa(cls, D, H, Hkv, dtype=F64):
    m = cls(D, H, Hkv).to(dtype)
    m.load_state_dict(gqa_sd(D, H, Hkv))
    return m


def gqa_ref(D, H, Hkv, dtype=F64):
    sd = {k: v.to(dtype).to(F64) for k, v in gqa_sd(D, H, Hkv).items()}
    return lambda x, mask=None: R.gqa(x, sd["q_proj.weight"], sd["k_proj.weight"], sd["v_proj.weight"], sd["o_proj.weight"], H, Hkv, mask)


def gqa_cmp(M, D, H, Hkv, x, mask=None, dtype=F64):
    m = make_gqa(M.GroupedQueryAttention, D, H, Hkv, dtype)
    check_out(m(x.to(dtype), mask), gqa_ref(D, H, Hkv, dtype)(d64(x.to(dtype)), mask), dtype)


@test(7)
def gqa_params(M):
    m = M.GroupedQueryAttention(16, 4, 2)
    shapes = {k: tuple(v.shape) for k, v in m.state_dict().items()}
    assert shapes == {"q_proj.weight": (16, 16), "k_proj.weight": (8, 16), "v_proj.weight": (8, 16), "o_proj.weight": (16, 16)}, shapes


@test(7)
def gqa_mha_equiv(M):
    gqa_cmp(M, 16, 4, 4, rnd(2, 5, 16, seed=9))


@test(7)
def gqa_grouped(M):
    gqa_cmp(M, 16, 4, 2, rnd(2, 5, 16, seed=9))
    gqa_cmp(M, 24, 6, 2, rnd(2, 5, 24, seed=9))


@test(7)
def gqa_mqa(M):
    gqa_cmp(M, 16, 4, 1, rnd(2, 5, 16, seed=9))


def gqa_pad():
    return R.padding_mask(torch.tensor([5, 0, 3]), 5)[:, None]


@test(7)
def gqa_padding(M):
    gqa_cmp(M, 16, 4, 2, rnd(3, 5, 16, seed=9), gqa_pad())


@test(7)
def gqa_padding_grad(M):
    x = rnd(3, 5, 16, seed=9)
    for mask in (gqa_pad(), None):
        m = make_gqa(M.GroupedQueryAttention, 16, 4, 2)
        names = ["q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"]
        params = dict(m.named_parameters())
        xg = x.clone().requires_grad_(True)
        got = torch.autograd.grad(loss_of(m(xg, mask)), [xg] + [params[n] for n in names], allow_unused=True)
        sd = {k: v.clone().requires_grad_(True) for k, v in gqa_sd(16, 4, 2).items()}
        xr = x.clone().requires_grad_(True)
        out = R.gqa(xr, sd["q_proj.weight"], sd["k_proj.weight"], sd["v_proj.weight"], sd["o_proj.weight"], 4, 2, mask)
        exp = torch.autograd.grad(loss_of(out), [xr] + [sd[n] for n in names])
        for n, g, e in zip(["x"] + names, got, exp):
            assert g is not None, f"no gradient for {n}"
            assert torch.isfinite(g).all(), f"NaN/inf gradient for {n}"
            check_out(g, e, what=f"grad {n}")


@test(7)
def gqa_dtypes(M):
    for dt in (F32, F16, BF16):
        gqa_cmp(M, 16, 4, 2, rnd(2, 5, 16, seed=9), None, dt)


@test(7)
def gqa_unchanged(M):
    unchanged_call(make_gqa(M.GroupedQueryAttention, 16, 4, 2), [rnd(2, 5, 16)])


@test(7)
def gqa_meta(M):
    m = make_gqa(M.GroupedQueryAttention, 16, 4, 2).to("meta")
    out = m(torch.empty(2, 5, 16, device="meta", dtype=F64))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 5, 16)


# ---------------------------------------------------------------- exercise 8
@test(8)
def bytes_values(M):
    assert M.kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
    for a in ((2, 8, 64, 100, 3, 4), (1, 1, 1, 1, 1, 1), (80, 8, 128, 8192, 2, 2)):
        assert M.kv_cache_bytes(*a) == R.kv_cache_bytes(*a), a
    assert M.kv_cache_bytes(4, 2, 16, 10, batch_size=5) == R.kv_cache_bytes(4, 2, 16, 10, 5)


@test(8)
def bytes_type(M):
    for a in ((32, 32, 128, 4096), (2, 8, 64, 100, 3, 4)):
        r = M.kv_cache_bytes(*a)
        assert type(r) is int, f"returned {type(r).__name__}"


def kv(B, H, T, d, seed, dtype=F64):
    return rnd(B, H, T, d, seed=seed, dtype=dtype), rnd(B, H, T, d, seed=seed + 50, dtype=dtype)


@test(8)
def cache_update_values(M):
    c = M.KVCache(2, 3, 4, 10, dtype=F64)
    assert len(c) == 0
    k1, v1 = kv(2, 3, 2, 4, 1)
    K, V = c.update(k1, v1)
    check_out(K, k1)
    check_out(V, v1)
    k2, v2 = kv(2, 3, 3, 4, 2)
    K, V = c.update(k2, v2)
    assert len(c) == 5
    check_out(K, torch.cat([k1, k2], 2))
    check_out(V, torch.cat([v1, v2], 2))


@test(8)
def cache_views(M):
    c = M.KVCache(2, 3, 4, 10, dtype=F64)
    K1, V1 = c.update(*kv(2, 3, 2, 4, 1))
    K2, V2 = c.update(*kv(2, 3, 3, 4, 2))
    assert K1.data_ptr() == K2.data_ptr() and V1.data_ptr() == V2.data_ptr(), "returned keys/values are not views of one storage"
    need = 2 * 3 * 10 * 4 * 8
    assert K2.untyped_storage().nbytes() >= need, "storage not allocated for max_len tokens"


@test(8)
def cache_overflow(M):
    c = M.KVCache(1, 2, 4, 5, dtype=F64)
    k1, v1 = kv(1, 2, 3, 4, 1)
    c.update(k1, v1)
    raises(ValueError, c.update, *kv(1, 2, 3, 4, 2))
    assert len(c) == 3, f"len after a refused update is {len(c)}, expected 3"
    k3, v3 = kv(1, 2, 2, 4, 3)
    K, V = c.update(k3, v3)
    check_out(K, torch.cat([k1, k3], 2))
    check_out(V, torch.cat([v1, v3], 2))
    raises(ValueError, c.update, *kv(1, 2, 1, 4, 4))


@test(8)
def cache_reset(M):
    c = M.KVCache(1, 2, 4, 6, dtype=F64)
    K0, _ = c.update(*kv(1, 2, 4, 4, 1))
    c.reset()
    assert len(c) == 0
    k, v = kv(1, 2, 5, 4, 2)
    K, V = c.update(k, v)
    check_out(K, k)
    check_out(V, v)
    assert K.data_ptr() == K0.data_ptr(), "reset allocated a new storage"


@test(8)
def cache_zero_keys(M):
    c = M.KVCache(1, 2, 4, 6, dtype=F64)
    z = torch.zeros(1, 2, 2, 4, dtype=F64)
    c.update(z, z)
    assert len(c) == 2


@test(8)
def cache_dtypes(M):
    for dt in (F32, F16, BF16):
        c = M.KVCache(1, 2, 4, 6, dtype=dt)
        k, v = kv(1, 2, 3, 4, 1, dt)
        K, V = c.update(k, v)
        check_out(K, k, dt)
        check_out(V, v, dt)


@test(8)
def cache_meta(M):
    c = M.KVCache(1, 2, 4, 6, dtype=F64, device="meta")
    k = torch.empty(1, 2, 3, 4, dtype=F64, device="meta")
    K, V = c.update(k, k)
    assert K.device.type == "meta" and V.device.type == "meta" and tuple(K.shape) == (1, 2, 3, 4)


@test(8)
def cached_none(M):
    for H, Hkv in ((4, 2), (4, 1), (4, 4)):
        m = make_gqa(M.CachedGroupedQueryAttention, 16, H, Hkv)
        x = rnd(2, 6, 16, seed=11)
        check_out(m(x), gqa_ref(16, H, Hkv)(x))


@test(8)
def cached_chunks(M):
    for H, Hkv in ((4, 2), (4, 1)):
        m = make_gqa(M.CachedGroupedQueryAttention, 16, H, Hkv)
        x = rnd(2, 9, 16, seed=11)
        exp = gqa_ref(16, H, Hkv)(x)
        for chunks in ((3, 1, 5), (1, 1, 7), (9,)):
            c = M.KVCache(2, Hkv, 4, 12, dtype=F64)
            outs, s = [], 0
            with torch.no_grad():
                for t in chunks:
                    outs.append(m(x[:, s:s + t], c))
                    s += t
            assert len(c) == 9, f"len(cache) = {len(c)} after 9 tokens"
            check_out(torch.cat(outs, 1), exp, what=f"chunks {chunks}")


def cached_grads(M, use_cache):
    x = rnd(2, 5, 16, seed=12)
    m = make_gqa(M.CachedGroupedQueryAttention, 16, 4, 2)
    names = ["q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"]
    params = dict(m.named_parameters())
    xg = x.clone().requires_grad_(True)
    cache = M.KVCache(2, 2, 4, 8, dtype=F64) if use_cache else None
    got = torch.autograd.grad(loss_of(m(xg, cache)), [xg] + [params[n] for n in names], allow_unused=True)
    sd = {k: v.clone().requires_grad_(True) for k, v in gqa_sd(16, 4, 2).items()}
    xr = x.clone().requires_grad_(True)
    out = R.gqa(xr, sd["q_proj.weight"], sd["k_proj.weight"], sd["v_proj.weight"], sd["o_proj.weight"], 4, 2)
    exp = torch.autograd.grad(loss_of(out), [xr] + [sd[n] for n in names])
    for n, g, e in zip(["x"] + names, got, exp):
        assert g is not None, f"no gradient for {n}"
        check_out(g, e, what=f"grad {n}")


@test(8)
def cached_grad_none(M):
    cached_grads(M, False)


@test(8)
def cached_grad_cache(M):
    cached_grads(M, True)


@test(8)
def cached_meta(M):
    m = make_gqa(M.CachedGroupedQueryAttention, 16, 4, 2).to("meta")
    c = M.KVCache(2, 2, 4, 8, dtype=F64, device="meta")
    out = m(torch.empty(2, 3, 16, device="meta", dtype=F64), c)
    assert out.device.type == "meta" and tuple(out.shape) == (2, 3, 16)


# ---------------------------------------------------------------- exercise 9
@test(9)
def tokens_shape(M):
    t = M.repeated_tokens(3, 5, 11, torch.Generator().manual_seed(0))
    assert isinstance(t, torch.Tensor) and t.dtype == torch.long and tuple(t.shape) == (3, 10) and t.device.type == "cpu"
    assert torch.equal(t[:, :5], t[:, 5:])
    assert int(t.min()) >= 0 and int(t.max()) < 11
    t = M.repeated_tokens(1, 1, 1)
    assert tuple(t.shape) == (1, 2)


@test(9)
def tokens_range(M):
    t = M.repeated_tokens(4, 500, 3, torch.Generator().manual_seed(1))
    assert set(t.unique().tolist()) == {0, 1, 2}, f"values {sorted(t.unique().tolist())}"
    t = M.repeated_tokens(2, 4, 1, torch.Generator().manual_seed(1))
    assert torch.equal(t, torch.zeros(2, 8, dtype=torch.long))


@test(9)
def tokens_generator(M):
    a = M.repeated_tokens(2, 8, 50, torch.Generator().manual_seed(7))
    torch.randn(13)
    b = M.repeated_tokens(2, 8, 50, torch.Generator().manual_seed(7))
    assert torch.equal(a, b), "the same seeded generator gave different tokens"


def patterns(B, H, L, seed=0):
    s = rnd(B, H, L, L, seed=seed, scale=2).masked_fill(~R.causal_mask(L), -math.inf)
    return R.softmax(s, -1)


@test(9)
def prev_values(M):
    for L in (2, 5, 8):
        call_cmp(M.previous_token_score, R.previous_token_score, [patterns(2, 3, L)])
    for dt in (F32, F16):
        call_cmp(M.previous_token_score, R.previous_token_score, [patterns(2, 3, 6)], dt)


@test(9)
def prev_errors(M):
    raises(ValueError, M.previous_token_score, patterns(2, 3, 5)[0])
    raises(ValueError, M.previous_token_score, torch.rand(1, 2, 4, 5, dtype=F64))
    raises(ValueError, M.previous_token_score, torch.ones(1, 2, 1, 1, dtype=F64))


@test(9)
def prev_meta(M):
    meta_call(M.previous_token_score, [patterns(2, 3, 6)])


@test(9)
def ind_values(M):
    for sl in (1, 3, 5):
        call_cmp(M.induction_score, R.induction_score, [patterns(2, 3, 2 * sl), sl])
    call_cmp(M.induction_score, R.induction_score, [patterns(2, 3, 8), 4], F32)


@test(9)
def ind_errors(M):
    raises(ValueError, M.induction_score, patterns(2, 3, 6), 4)
    raises(ValueError, M.induction_score, patterns(2, 3, 6)[0], 3)
    raises(ValueError, M.induction_score, torch.rand(1, 2, 6, 5, dtype=F64), 3)


@test(9)
def ind_meta(M):
    meta_call(M.induction_score, [patterns(2, 3, 6), 3])


def model_patterns(sl=4, B=2):
    L = 2 * sl
    prev = torch.zeros(L, L, dtype=F64)
    prev[0, 0] = 1
    for i in range(1, L):
        prev[i, i - 1] = 1
    ind = R.causal_mask(L).to(F64)
    ind = ind / ind.sum(-1, keepdim=True)
    for i in range(sl, L):
        ind[i] = 0
        ind[i, i - sl + 1] = 1
    uni = R.causal_mask(L).to(F64)
    uni = uni / uni.sum(-1, keepdim=True)
    l0 = torch.stack([prev, uni, ind]).expand(B, 3, L, L).clone()
    l1 = torch.stack([uni, ind, prev, prev]).expand(B, 4, L, L).clone()
    return [l0, l1]


@test(9)
def find_values(M):
    ps = model_patterns()
    got = M.find_heads(ps)
    assert got == R.find_heads(ps), f"got {got}, expected {R.find_heads(ps)}"
    got = M.find_heads(tuple(ps), threshold=0.95)
    assert got == R.find_heads(ps, 0.95), f"got {got}"
    got = M.find_heads([patterns(1, 2, 6)], threshold=0.99)
    assert got == {"previous_token": [], "induction": []}, got


@test(9)
def find_types(M):
    got = M.find_heads(model_patterns())
    assert type(got) is dict and set(got) == {"previous_token", "induction"}
    for key, lst in got.items():
        assert type(lst) is list
        for t in lst:
            assert type(t) is tuple and len(t) == 2 and all(type(i) is int for i in t), f"{key}: {t!r} is not (int, int)"


@test(9)
def find_boundary(M):
    L = 6
    p = torch.zeros(L, L, dtype=F64)
    p[0, 0] = 1
    for i in range(1, L):
        p[i, i] = 0.5
        p[i, i - 1] = 0.5
    ps = [p.expand(1, 2, L, L).clone()]
    got = M.find_heads(ps, threshold=0.5)
    assert got == R.find_heads(ps, 0.5) == {"previous_token": [], "induction": []}, f"score exactly 0.5 with threshold 0.5: got {got}"


@test(9)
def find_odd(M):
    raises(ValueError, M.find_heads, [patterns(1, 2, 7)])


# ---------------------------------------------------------------- exercise 10
@test(10)
def cost_values(M):
    for L, d in ((1, 1), (1024, 768), (7, 3)):
        got = M.attention_cost(L, d)
        assert got == R.attention_cost(L, d), f"({L}, {d}): {got}"


@test(10)
def cost_types(M):
    got = M.attention_cost(100, 64)
    assert type(got) is dict and all(type(v) is int for v in got.values()), got


@test(10)
def crossover_values(M):
    for d in (768, 4096, 1, 5):
        assert M.crossover_length(d) == 6 * d


@test(10)
def crossover_type(M):
    assert type(M.crossover_length(768)) is int, type(M.crossover_length(768)).__name__


def soft_ref(x, block_size):
    return R.softmax(x, -1)


@test(10)
def online_basic(M):
    x = rnd(2, 3, 10, scale=2)
    for bs in (1, 3, 4, 10, 25):
        call_cmp(M.online_softmax, soft_ref, [x, bs])


@test(10)
def online_increasing(M):
    x = torch.arange(12, dtype=F64).repeat(2, 1) * 0.7
    x[1] = x[1].flip(0)
    for bs in (2, 5):
        call_cmp(M.online_softmax, soft_ref, [x, bs])


@test(10)
def online_huge(M):
    x = rnd(2, 6, scale=2)
    x[0] = torch.tensor([-1e4, 5, 1e4, 1e4 - 2, 0, -5])
    for dt in (F64, F32):
        call_cmp(M.online_softmax, soft_ref, [x, 2], dt)


@test(10)
def online_leading_neginf(M):
    x = rnd(2, 9)
    x[0, :3] = -math.inf
    x[1, :6] = -math.inf
    call_cmp(M.online_softmax, soft_ref, [x, 3])


@test(10)
def online_all_neginf(M):
    x = rnd(3, 7)
    x[1] = -math.inf
    call_cmp(M.online_softmax, soft_ref, [x, 3])


@test(10)
def online_dtypes(M):
    x = rnd(3, 10, scale=2)
    x[1, :4] = -math.inf
    for dt in (F32, F16, BF16):
        call_cmp(M.online_softmax, soft_ref, [x, 3], dt)


@test(10)
def online_unchanged(M):
    x = rnd(3, 10)
    x[1, :4] = -math.inf
    unchanged_call(M.online_softmax, [x, 3])


@test(10)
def online_meta(M):
    meta_call(M.online_softmax, [rnd(3, 10), 3])


def t_ref(q, k, v, block_size, causal=False):
    return R.attention_causal_offset(q, k, v, causal)


def tqkv(lead, Lq, Lk, dk, dv, seed=0):
    return [rnd(*lead, Lq, dk, seed=seed), rnd(*lead, Lk, dk, seed=seed + 1), rnd(*lead, Lk, dv, seed=seed + 2)]


@test(10)
def tiled_basic(M):
    a = tqkv((2, 3), 7, 9, 4, 5)
    for bs in (1, 3, 4, 9, 20):
        call_cmp(M.tiled_attention, t_ref, a + [bs])
    call_cmp(M.tiled_attention, t_ref, tqkv((), 4, 6, 3, 2) + [4])


@test(10)
def tiled_causal_square(M):
    for bs in (1, 3, 8):
        call_cmp(M.tiled_attention, t_ref, tqkv((2,), 8, 8, 4, 5) + [bs], causal=True)


@test(10)
def tiled_causal_lq_lt_lk(M):
    for bs in (2, 3, 16):
        call_cmp(M.tiled_attention, t_ref, tqkv((2,), 3, 8, 4, 5) + [bs], causal=True)
    call_cmp(M.tiled_attention, t_ref, tqkv((2,), 1, 8, 4, 5) + [3], causal=True)


@test(10)
def tiled_causal_lq_gt_lk(M):
    for bs in (1, 3):
        call_cmp(M.tiled_attention, t_ref, tqkv((2,), 6, 4, 4, 5) + [bs], causal=True)


@test(10)
def tiled_dtypes(M):
    for dt in (F32, F16, BF16):
        call_cmp(M.tiled_attention, t_ref, tqkv((2,), 6, 8, 4, 5) + [3], dt, causal=True)


@test(10)
def tiled_grad(M):
    grad_cmp(M.tiled_attention, t_ref, tqkv((2,), 5, 7, 4, 3) + [3], [0, 1, 2])


@test(10)
def tiled_causal_grad(M):
    grad_cmp(M.tiled_attention, t_ref, tqkv((2,), 5, 7, 4, 3) + [3], [0, 1, 2], causal=True)
    grad_cmp(M.tiled_attention, t_ref, tqkv((2,), 6, 4, 4, 3) + [3], [0, 1, 2], causal=True)


@test(10)
def tiled_memory(M):
    L = 256
    a = tqkv((), L, L, 8, 8)
    for causal in (False, True):
        mode = MaxNumel()
        with mode:
            M.tiled_attention(*a, 16, causal=causal)
        assert mode.max <= L * L // 4, f"largest tensor has {mode.max} elements (L*L = {L * L})"


@test(10)
def tiled_unchanged(M):
    unchanged_call(M.tiled_attention, tqkv((2,), 5, 7, 4, 3) + [3], causal=True)


@test(10)
def tiled_meta(M):
    out = meta_call(M.tiled_attention, tqkv((2,), 5, 7, 4, 3) + [3], causal=True)
    assert tuple(out.shape) == (2, 5, 3)
