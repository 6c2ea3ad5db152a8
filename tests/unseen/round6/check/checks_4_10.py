# Exercises 4-10 checks (exec'd inside check_corpus.py's namespace).

# ---------------------------------------------------------------- exercise 4
@check(4)
def ex4_causal(m):
    for L in (1, 2, 3, 5):
        c = m.causal_mask(L)
        if not isinstance(c, torch.Tensor) or c.dtype != torch.bool:
            raise AssertionError(f"causal_mask dtype {getattr(c, 'dtype', type(c))}, expected bool")
        if not torch.equal(c, ref.causal_mask(L)):
            raise AssertionError(f"causal_mask({L}) differs from the lower triangle with diagonal")


@check(4)
def ex4_causal_device(m):
    on_meta(m.causal_mask(3, device="meta"))
    on_meta(m.causal_mask(3, device=torch.device("meta")))


MASKS4 = [((4, 4), lambda: ref.causal_mask(4)),
          ((2, 3, 5), lambda: torch.tensor([[[True, True, False, False, False]], [[False] * 5]])),
          ((2, 2, 3, 4), lambda: torch.tensor([[True, False, True, True], [False] * 4, [True] * 4]))]


@check(4)
def ex4_apply(m):
    for shp, mk in MASKS4:
        s, mask = rnd(*shp), mk()
        out, exp = m.apply_mask(s, mask), ref.apply_mask(s, mask)
        if tuple(out.shape) != tuple(exp.shape):
            raise AssertionError(f"shape {tuple(out.shape)} != {tuple(exp.shape)}")
        if torch.isnan(out).any():
            raise AssertionError("apply_mask produced NaN")
        if not torch.equal(torch.isneginf(out), torch.isneginf(exp)):
            raise AssertionError("-inf not exactly where the mask is False")
        fin = torch.isfinite(exp)
        close(out[fin], exp[fin])


@check(4)
def ex4_apply_grads(m):
    mask = torch.tensor([[True, False, True], [False, False, False]])
    sel = lambda o: o.masked_fill(~mask, 0.0)  # noqa: E731
    same_grads(lambda s: sel(m.apply_mask(s, mask)), lambda s: sel(ref.apply_mask(s, mask)),
               lambda: [rnd(2, 2, 3, grad=True)])


@check(4)
def ex4_apply_dtype_unchanged(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        dtype_is(m.apply_mask(rnd(2, 3, dtype=dt), ref.causal_mask(3)[:2]), dt)
    s = rnd(2, 4, 4)
    sn = snapshot(s)
    m.apply_mask(s, ref.causal_mask(4))
    unchanged(sn, [s], "scores")


@check(4)
def ex4_apply_device(m):
    on_meta(m.apply_mask(meta(2, 3, 3), torch.ones(3, 3, dtype=torch.bool, device="meta")))


@check(4)
def ex4_padding(m):
    for lens, L in (([3, 1, 0, 4], 4), ([2, 1], 5), ([0], 3), ([1], 1)):
        lengths = torch.tensor(lens, dtype=torch.int64)
        p = m.padding_mask(lengths, L)
        e = ref.padding_mask(lengths, L)
        if p.dtype != torch.bool:
            raise AssertionError(f"padding_mask dtype {p.dtype}, expected bool")
        if tuple(p.shape) != tuple(e.shape):
            raise AssertionError(f"padding_mask shape {tuple(p.shape)} != {tuple(e.shape)}")
        if not torch.equal(p, e):
            raise AssertionError(f"padding_mask({lens}, {L}) wrong values")


@check(4)
def ex4_padding_device(m):
    on_meta(m.padding_mask(torch.tensor([2, 3]).to("meta"), 4))


# ---------------------------------------------------------------- exercise 5
def _sm_inputs():
    x = rnd(3, 4, 5, seed=3) * 3
    x[0, 1, 2] = float("-inf")
    x[1, 2, :] = float("-inf")
    return x


@check(5)
def ex5_softmax_forward(m):
    x = _sm_inputs()
    with forbid_softmax():
        for dim in (-1, 0, 1, 2):
            close(m.softmax(x, dim=dim), ref.softmax(x, dim=dim))
        close(m.softmax(x), ref.softmax(x))


@check(5)
def ex5_softmax_extreme(m):
    x = torch.tensor([[1e4, 0.0, -1e4], [-1e4, -1e4 + 1.0, -1e4 + 2.0], [1e4, 1e4, 1e4]], dtype=D64)
    with forbid_softmax():
        close(m.softmax(x, dim=-1), ref.softmax(x, dim=-1))
        close(m.softmax(x.T.contiguous(), dim=0), ref.softmax(x.T.contiguous(), dim=0))


@check(5)
def ex5_softmax_masked_row(m):
    x = torch.full((2, 3), float("-inf"), dtype=D64)
    x[1, 0] = 0.5
    with forbid_softmax():
        out = m.softmax(x, dim=-1)
    if torch.isnan(out).any():
        raise AssertionError("fully -inf row gives NaN")
    close(out, ref.softmax(x, dim=-1))


@check(5)
def ex5_softmax_grads(m):
    with forbid_softmax():
        for dim in (-1, 1):
            same_grads(lambda x: m.softmax(x, dim=dim), lambda x: ref.softmax(x, dim=dim),
                       lambda: [_sm_inputs().requires_grad_(True)])


@check(5)
def ex5_softmax_dtype_unchanged_device(m):
    with forbid_softmax():
        for dt in (torch.float32, torch.bfloat16, torch.float16):
            dtype_is(m.softmax(rnd(3, 4, dtype=dt), dim=-1), dt)
        x = _sm_inputs()
        sn = snapshot(x)
        m.softmax(x, dim=-1)
        unchanged(sn, [x])
        on_meta(m.softmax(meta(2, 3), dim=-1))


SDPA_CASES = [((4, 3), (4, 3), (4, 3), None),
              ((2, 3, 4), (2, 5, 4), (2, 5, 2), None),
              ((2, 3, 3, 4), (2, 3, 6, 4), (2, 3, 6, 5), "pad"),
              ((1, 2), (3, 2), (3, 4), "causal"),
              ((2, 5, 3), (2, 5, 3), (2, 5, 3), "causal")]


def _sdpa_mask(kind, sq, sk):
    Lq, Lk = sq[-2], sk[-2]
    if kind is None:
        return None
    if kind == "causal":
        return ref.causal_offset_mask(Lq, Lk)
    mk = torch.ones(Lq, Lk, dtype=torch.bool)
    mk[1] = False  # a query that may see no key
    mk[:, -1] = False
    return mk


@check(5)
def ex5_sdpa_forward(m):
    with forbid_softmax():
        for sq, sk, sv, mk in SDPA_CASES:
            q, k, v = rnd(*sq, seed=1), rnd(*sk, seed=2), rnd(*sv, seed=3)
            mask = _sdpa_mask(mk, sq, sk)
            o, w = m.scaled_dot_product_attention(q, k, v, mask)
            eo, ew = ref.sdpa(q, k, v, mask)
            close(w, ew)
            close(o, eo)


@check(5)
def ex5_sdpa_grads(m):
    sq, sk, sv = (2, 3, 4), (2, 5, 4), (2, 5, 3)
    mask = _sdpa_mask("pad", sq, sk)
    with forbid_softmax():
        same_grads(lambda q, k, v: m.scaled_dot_product_attention(q, k, v, mask),
                   lambda q, k, v: ref.sdpa(q, k, v, mask),
                   lambda: [rnd(*sq, seed=1, grad=True), rnd(*sk, seed=2, grad=True), rnd(*sv, seed=3, grad=True)])


@check(5)
def ex5_sdpa_dtype_unchanged_device(m):
    with forbid_softmax():
        for dt in (torch.float32, torch.bfloat16, torch.float16):
            dtype_is(m.scaled_dot_product_attention(rnd(2, 3, 4, dtype=dt), rnd(2, 5, 4, dtype=dt),
                                                   rnd(2, 5, 3, dtype=dt)), dt)
        q, k, v = rnd(2, 3, 4), rnd(2, 5, 4), rnd(2, 5, 3)
        sn = snapshot(q, k, v)
        m.scaled_dot_product_attention(q, k, v, ref.causal_offset_mask(3, 5))
        unchanged(sn, [q, k, v])
        on_meta(m.scaled_dot_product_attention(meta(2, 3, 4), meta(2, 5, 4), meta(2, 5, 3),
                                               torch.ones(3, 5, dtype=torch.bool, device="meta")))


# ---------------------------------------------------------------- exercise 6
def _params(shapes, seed=11):
    return {k: torch.randn(*s, generator=gen(seed + i), dtype=D64) * 0.5 for i, (k, s) in enumerate(shapes.items())}


def _mha_params(D, bias=True):
    sh = {"qkv.weight": (3 * D, D), "out.weight": (D, D)}
    if bias:
        sh.update({"qkv.bias": (3 * D,), "out.bias": (D,)})
    return _params(sh)


def _load(mod, params):
    mod.load_state_dict({k: v.clone() for k, v in params.items()}, strict=True)
    return mod


@check(6)
def ex6_split_merge(m):
    for B, L, D, H in ((2, 5, 12, 3), (1, 4, 8, 1), (2, 1, 9, 3), (3, 2, 10, 5)):
        x = rnd(B, L, D)
        close(m.split_heads(x, H), ref.split_heads(x, H))
        y = rnd(B, H, L, D // H, seed=3)
        close(m.merge_heads(y), ref.merge_heads(y))
        yt = rnd(B, L, H, D // H, seed=4).transpose(1, 2)  # not contiguous
        close(m.merge_heads(yt), ref.merge_heads(yt))


@check(6)
def ex6_split_merge_misc(m):
    x = rnd(2, 3, 6)
    sn = snapshot(x)
    s = m.split_heads(x, 2)
    unchanged(sn, [x])
    if s.untyped_storage().data_ptr() != x.untyped_storage().data_ptr():
        raise AssertionError("split_heads copied the data (the docstring asks for a view, then a transpose)")
    y = rnd(2, 2, 3, 3)
    sn = snapshot(y)
    m.merge_heads(y)
    unchanged(sn, [y])
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        dtype_is(m.split_heads(rnd(2, 3, 6, dtype=dt), 3), dt)
        dtype_is(m.merge_heads(rnd(2, 3, 4, 2, dtype=dt)), dt)
    on_meta(m.split_heads(meta(2, 3, 6), 3))
    on_meta(m.merge_heads(meta(2, 3, 4, 2)))
    same_grads(lambda t: m.merge_heads(m.split_heads(t, 3)), lambda t: t, lambda: [rnd(2, 4, 6, grad=True)])


@check(6)
def ex6_structure(m):
    for bias in (True, False):
        mod = m.MultiHeadAttention(12, 3, bias=bias)
        kids = dict(mod.named_children())
        if set(kids) != {"qkv", "out"} or not all(isinstance(c, nn.Linear) for c in kids.values()):
            raise AssertionError(f"submodules {sorted(kids)}, expected qkv and out (nn.Linear)")
        keys = set(mod.state_dict())
        exp = {"qkv.weight", "out.weight"} | ({"qkv.bias", "out.bias"} if bias else set())
        if keys != exp:
            raise AssertionError(f"state dict keys {sorted(keys)} != {sorted(exp)} (bias={bias})")
        if tuple(mod.qkv.weight.shape) != (36, 12) or tuple(mod.out.weight.shape) != (12, 12):
            raise AssertionError("wrong linear shapes")


def _pad_mask4(B, L):
    lengths = torch.tensor([L - 1, 0] + [L] * (B - 2))[:B]
    return ref.padding_mask(lengths, L)[:, None]  # (B, 1, 1, L)


@check(6)
def ex6_forward(m):
    for D, H, bias, L in ((12, 3, True, 5), (8, 4, False, 4), (9, 3, True, 1), (10, 5, True, 3)):
        p = _mha_params(D, bias)
        mod = _load(m.MultiHeadAttention(D, H, bias=bias).double(), p)
        x = rnd(2, L, D, seed=5)
        with forbid_sdpa():
            close(mod(x), ref.mha_forward(p, x, H))
            mk = _pad_mask4(2, L)
            out = mod(x, mk)
        if torch.isnan(out).any():
            raise AssertionError("NaN for a fully padded sequence")
        close(out, ref.mha_forward(p, x, H, mk))
        full = torch.ones(L, L, dtype=torch.bool)
        close(mod(x, full), ref.mha_forward(p, x, H, full))


@check(6)
def ex6_two_lengths(m):
    p = _mha_params(8)
    mod = _load(m.MultiHeadAttention(8, 2).double(), p)
    for L in (5, 3, 6):
        x = rnd(1, L, 8, seed=L)
        close(mod(x), ref.mha_forward(p, x, 2))


@check(6)
def ex6_grads(m):
    p = _mha_params(6)
    mod = _load(m.MultiHeadAttention(6, 3).double(), p)
    mk = _pad_mask4(2, 4)
    same_grads(lambda x: mod(x, mk), lambda x: ref.mha_forward(p, x, 3, mk), lambda: [rnd(2, 4, 6, grad=True)])
    x = rnd(2, 4, 6, grad=True)
    mod(x).sum().backward()
    if mod.qkv.weight.grad is None or not torch.isfinite(mod.qkv.weight.grad).all():
        raise AssertionError("no finite gradient for qkv.weight")


@check(6)
def ex6_dtype_device(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        mod = m.MultiHeadAttention(6, 3).to(dt)
        dtype_is(mod(rnd(2, 3, 6, dtype=dt)), dt)
    mod = m.MultiHeadAttention(6, 3).to("meta")
    on_meta(mod(meta(2, 3, 6)))
    x = rnd(2, 3, 6)
    sn = snapshot(x)
    m.MultiHeadAttention(6, 3).double()(x)
    unchanged(sn, [x])


# ---------------------------------------------------------------- exercise 7
def _gqa_params(D, H, Hkv, seed=21):
    dh = D // H
    return _params({"q_proj.weight": (H * dh, D), "k_proj.weight": (Hkv * dh, D),
                    "v_proj.weight": (Hkv * dh, D), "o_proj.weight": (D, H * dh)}, seed)


@check(7)
def ex7_repeat_kv(m):
    for shp, r in (((2, 2, 3, 4), 3), ((1, 3, 2, 2), 1), ((2, 1, 3, 2), 4), ((1, 3, 1, 2), 2)):
        x = rnd(*shp)
        close(m.repeat_kv(x, r), ref.repeat_kv(x, r))


@check(7)
def ex7_repeat_kv_misc(m):
    x = rnd(2, 2, 3, 4)
    sn = snapshot(x)
    m.repeat_kv(x, 2)
    m.repeat_kv(x, 1)
    unchanged(sn, [x])
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        dtype_is(m.repeat_kv(rnd(1, 2, 3, 2, dtype=dt), 2), dt)
    on_meta(m.repeat_kv(meta(1, 2, 3, 2), 2))
    same_grads(lambda t: m.repeat_kv(t, 3), lambda t: ref.repeat_kv(t, 3), lambda: [rnd(2, 2, 3, 2, grad=True)])


@check(7)
def ex7_structure(m):
    mod = m.GroupedQueryAttention(12, 6, 2)
    exp = {"q_proj.weight": (12, 12), "k_proj.weight": (4, 12), "v_proj.weight": (4, 12), "o_proj.weight": (12, 12)}
    got = {k: tuple(v.shape) for k, v in mod.state_dict().items()}
    if got != exp:
        raise AssertionError(f"state dict {got} != {exp}")
    kids = dict(mod.named_children())
    if set(kids) != {"q_proj", "k_proj", "v_proj", "o_proj"}:
        raise AssertionError(f"submodules {sorted(kids)}")


GQA_CFG = ((8, 4, 2, 5), (12, 6, 3, 4), (6, 3, 1, 3), (8, 4, 4, 1), (12, 6, 2, 4))


@check(7)
def ex7_forward(m):
    for D, H, Hkv, L in GQA_CFG:
        p = _gqa_params(D, H, Hkv)
        mod = _load(m.GroupedQueryAttention(D, H, Hkv).double(), p)
        x = rnd(2, L, D, seed=5)
        with forbid_sdpa():
            close(mod(x), ref.gqa_forward(p, x, H, Hkv))
            full = torch.ones(L, L, dtype=torch.bool)
            close(mod(x, full), ref.gqa_forward(p, x, H, Hkv, full))


@check(7)
def ex7_padding_rows(m):
    D, H, Hkv, L = 8, 4, 2, 4
    p = _gqa_params(D, H, Hkv)
    mod = _load(m.GroupedQueryAttention(D, H, Hkv).double(), p)
    x, mk = rnd(2, L, D, seed=5), _pad_mask4(2, L)
    out = mod(x, mk)
    if torch.isnan(out).any():
        raise AssertionError("NaN for a fully padded sequence")
    close(out, ref.gqa_forward(p, x, H, Hkv, mk))


@check(7)
def ex7_grads(m):
    D, H, Hkv = 6, 3, 1
    p = _gqa_params(D, H, Hkv)
    mod = _load(m.GroupedQueryAttention(D, H, Hkv).double(), p)
    same_grads(mod, lambda x: ref.gqa_forward(p, x, H, Hkv), lambda: [rnd(2, 4, D, grad=True)])


@check(7)
def ex7_dtype_device(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        mod = m.GroupedQueryAttention(8, 4, 2).to(dt)
        dtype_is(mod(rnd(2, 3, 8, dtype=dt)), dt)
    on_meta(m.GroupedQueryAttention(8, 4, 2).to("meta")(meta(2, 3, 8)))
    x = rnd(2, 3, 8)
    sn = snapshot(x)
    m.GroupedQueryAttention(8, 4, 2).double()(x)
    unchanged(sn, [x])


# ---------------------------------------------------------------- exercise 8
@check(8)
def ex8_bytes(m):
    cases = [((32, 32, 128, 4096), {}), ((80, 8, 128, 1), {}), ((2, 3, 4, 5), {"batch_size": 6}),
             ((1, 1, 1, 1), {"batch_size": 1, "bytes_per_value": 4}), ((3, 2, 8, 7), {"batch_size": 2, "bytes_per_value": 1})]
    for a, kw in cases:
        got, exp = m.kv_cache_bytes(*a, **kw), ref.kv_cache_bytes(*a, **kw)
        if type(got) is not int:
            raise AssertionError(f"kv_cache_bytes returned {type(got).__name__}, expected int")
        if got != exp:
            raise AssertionError(f"kv_cache_bytes{a, kw} = {got}, expected {exp}")


def _kv(B, H, T, d, seed):
    return rnd(B, H, T, d, seed=seed), rnd(B, H, T, d, seed=seed + 100)


@check(8)
def ex8_cache_basic(m):
    B, H, d, M = 2, 2, 3, 6
    c = m.KVCache(B, H, d, M, dtype=D64)
    if len(c) != 0:
        raise AssertionError("a new cache must hold 0 tokens")
    ks, vs = [], []
    for T, seed in ((2, 1), (1, 2), (3, 3)):  # 2 + 1 + 3 = 6 = max_len exactly
        k, v = _kv(B, H, T, d, seed)
        ks.append(k), vs.append(v)
        K, V = c.update(k, v)
        close(K, torch.cat(ks, 2))
        close(V, torch.cat(vs, 2))
        if len(c) != sum(t.shape[2] for t in ks):
            raise AssertionError(f"len(cache) = {len(c)}, expected {sum(t.shape[2] for t in ks)}")


@check(8)
def ex8_cache_overflow(m):
    B, H, d, M = 1, 2, 2, 4
    c = m.KVCache(B, H, d, M, dtype=D64)
    k, v = _kv(B, H, 3, d, 1)
    c.update(k, v)
    k2, v2 = _kv(B, H, 2, d, 2)
    try:
        c.update(k2, v2)
    except ValueError:
        pass
    else:
        raise AssertionError("appending past max_len did not raise ValueError")
    if len(c) != 3:
        raise AssertionError(f"after a refused append len(cache) = {len(c)}, expected 3 (unchanged)")
    k3, v3 = _kv(B, H, 1, d, 3)
    K, V = c.update(k3, v3)
    close(K, torch.cat([k, k3], 2))
    close(V, torch.cat([v, v3], 2))


@check(8)
def ex8_cache_reset_zeros(m):
    B, H, d, M = 1, 1, 2, 5
    c = m.KVCache(B, H, d, M, dtype=D64)
    c.update(*_kv(B, H, 3, d, 1))
    c.reset()
    if len(c) != 0:
        raise AssertionError(f"after reset len(cache) = {len(c)}, expected 0")
    z = torch.zeros(B, H, 2, d, dtype=D64)
    K, V = c.update(z, z)
    if len(c) != 2 or tuple(K.shape) != (B, H, 2, d):
        raise AssertionError(f"all-zero keys must count as tokens: len {len(c)}, keys {tuple(K.shape)}")
    k, v = _kv(B, H, 1, d, 4)
    K, V = c.update(k, v)
    close(K, torch.cat([z, k], 2))
    close(V, torch.cat([z, v], 2))


@check(8)
def ex8_cache_storage(m):
    B, H, d, M = 2, 2, 3, 8
    c = m.KVCache(B, H, d, M, dtype=D64)
    need = B * H * M * d
    ptrs = set()
    for val in vars(c).values():
        vals = val if isinstance(val, (list, tuple)) else [val]
        for t in vals:
            if isinstance(t, torch.Tensor) and t.numel() >= need:
                ptrs.add(t.untyped_storage().data_ptr())
    if not ptrs:
        raise AssertionError("no storage for max_len tokens allocated in __init__")
    for T in (2, 3):
        K, V = c.update(*_kv(B, H, T, d, T))
        for t in (K, V):
            if t.untyped_storage().data_ptr() not in ptrs:
                raise AssertionError("update returned tensors outside the storage allocated in __init__ (reallocated)")


@check(8)
def ex8_cache_dtype_device(m):
    c = m.KVCache(1, 2, 3, 4, dtype=torch.float64)
    K, V = c.update(*_kv(1, 2, 2, 3, 1))
    dtype_is((K, V), torch.float64)
    c = m.KVCache(1, 2, 3, 4, dtype=torch.bfloat16)
    K, V = c.update(rnd(1, 2, 1, 3, dtype=torch.bfloat16), rnd(1, 2, 1, 3, dtype=torch.bfloat16))
    dtype_is((K, V), torch.bfloat16)
    c = m.KVCache(1, 2, 3, 4, dtype=torch.float32, device="meta")
    on_meta(c.update(meta(1, 2, 2, 3), meta(1, 2, 2, 3)))


CACHED_CFG = ((8, 4, 2), (6, 3, 1), (8, 2, 2))


@check(8)
def ex8_cached_chunks(m):
    for D, H, Hkv in CACHED_CFG:
        p = _gqa_params(D, H, Hkv)
        mod = _load(m.CachedGroupedQueryAttention(D, H, Hkv).double(), p)
        x = rnd(2, 9, D, seed=3)
        full = ref.gqa_forward(p, x, H, Hkv)
        with forbid_sdpa():
            close(mod(x), full)
            cache = m.KVCache(2, Hkv, D // H, 12, dtype=D64)
            outs, s = [], 0
            for T in (3, 1, 5):
                outs.append(mod(x[:, s:s + T], cache))
                s += T
        close(torch.cat(outs, 1), full)
        if len(cache) != 9:
            raise AssertionError(f"cache holds {len(cache)} tokens after 9")


@check(8)
def ex8_cached_one_by_one(m):
    D, H, Hkv = 8, 4, 2
    p = _gqa_params(D, H, Hkv)
    mod = _load(m.CachedGroupedQueryAttention(D, H, Hkv).double(), p)
    x = rnd(1, 5, D, seed=4)
    cache = m.KVCache(1, Hkv, D // H, 5, dtype=D64)
    outs = [mod(x[:, i:i + 1], cache) for i in range(5)]
    close(torch.cat(outs, 1), ref.gqa_forward(p, x, H, Hkv))


@check(8)
def ex8_cached_grads(m):
    D, H, Hkv = 6, 3, 1
    p = _gqa_params(D, H, Hkv)
    mod = _load(m.CachedGroupedQueryAttention(D, H, Hkv).double(), p)
    same_grads(mod, lambda x: ref.gqa_forward(p, x, H, Hkv), lambda: [rnd(2, 4, D, grad=True)])
    same_grads(lambda x: mod(x, m.KVCache(2, Hkv, D // H, 6, dtype=D64)),
               lambda x: ref.gqa_forward(p, x, H, Hkv), lambda: [rnd(2, 4, D, grad=True)])


@check(8)
def ex8_cached_dtype_device(m):
    mod = m.CachedGroupedQueryAttention(8, 4, 2).float()
    c = m.KVCache(1, 2, 2, 6, dtype=torch.float32)
    dtype_is(mod(rnd(1, 3, 8, dtype=torch.float32), c), torch.float32)
    modm = m.CachedGroupedQueryAttention(8, 4, 2).to("meta")
    cm = m.KVCache(1, 2, 2, 6, dtype=torch.float32, device="meta")
    on_meta(modm(meta(1, 3, 8), cm))
    on_meta(modm(meta(1, 3, 8)))
    x = rnd(1, 3, 8)
    sn = snapshot(x)
    m.CachedGroupedQueryAttention(8, 4, 2).double()(x, m.KVCache(1, 2, 2, 6, dtype=D64))
    unchanged(sn, [x])


# ---------------------------------------------------------------- exercise 9
def _patterns():
    """Layer 0: head 0 uniform causal, head 1 previous-token, head 2 exactly 0.375 on the previous token.
    Layer 1: head 0 uniform, head 1 previous-token, head 2 induction, head 3 induction at exactly 0.375."""
    T, L, B = 4, 8, 2
    def uniform():
        c = ref.causal_mask(L).double()
        return c / c.sum(-1, keepdim=True)
    def prev(w):
        p = torch.zeros(L, L, dtype=D64)
        p[0, 0] = 1.0
        for i in range(1, L):
            p[i, i - 1] = w
            p[i, i] += 1.0 - w
        return p
    def induction(w):
        p = torch.zeros(L, L, dtype=D64)
        for i in range(L):
            if i >= T:
                p[i, i - T + 1] = w
                p[i, i] += 1.0 - w
            else:
                p[i, i] = 1.0
        return p
    l0 = torch.stack([uniform(), prev(1.0), prev(0.375)])
    l1 = torch.stack([uniform(), prev(1.0), induction(1.0), induction(0.375)])
    return [l0[None].expand(B, -1, -1, -1).clone(), l1[None].expand(B, -1, -1, -1).clone()]


@check(9)
def ex9_tokens(m):
    for b, T, V in ((2, 4, 10), (1, 1, 1), (3, 5, 2)):
        t = m.repeated_tokens(b, T, V, generator=gen(3))
        if not ref.repeated_tokens_check(t, b, T, V):
            raise AssertionError(f"repeated_tokens({b}, {T}, {V}) is not int64 (b, 2T) with the second half equal to the first: {t.dtype} {tuple(t.shape)}")
        if t.device.type != "cpu":
            raise AssertionError("tokens not on the CPU")
    t = m.repeated_tokens(4, 50, 2, generator=gen(1))
    if set(t.unique().tolist()) != {0, 1}:
        raise AssertionError("tokens do not cover 0 .. vocab_size - 1")


@check(9)
def ex9_tokens_generator(m):
    a = m.repeated_tokens(2, 6, 1000, generator=gen(5))
    torch.rand(10)
    b = m.repeated_tokens(2, 6, 1000, generator=gen(5))
    if not torch.equal(a, b):
        raise AssertionError("the same seeded generator gives different tokens")
    c = m.repeated_tokens(2, 6, 1000, generator=gen(6))
    if torch.equal(a, c):
        raise AssertionError("different seeds give the same tokens")


@check(9)
def ex9_previous(m):
    for p in _patterns() + [torch.rand(3, 2, 5, 5, generator=gen(1), dtype=D64), torch.rand(2, 3, 2, 2, generator=gen(2), dtype=D64)]:
        close(m.previous_token_score(p), ref.previous_token_score(p))


@check(9)
def ex9_induction(m):
    for p, T in [(q, 4) for q in _patterns()] + [(torch.rand(3, 2, 6, 6, generator=gen(1), dtype=D64), 3),
                                                 (torch.rand(2, 3, 2, 2, generator=gen(2), dtype=D64), 1)]:
        close(m.induction_score(p, T), ref.induction_score(p, T))


def _raises(f, what):
    try:
        f()
    except ValueError:
        return
    except Exception as e:  # noqa: BLE001
        raise AssertionError(f"{what}: raised {type(e).__name__}, expected ValueError")
    raise AssertionError(f"{what}: no ValueError")


@check(9)
def ex9_value_errors(m):
    _raises(lambda: m.previous_token_score(torch.rand(2, 3, 1, 1)), "previous_token_score with L = 1")
    _raises(lambda: m.previous_token_score(torch.rand(3, 4, 4)), "previous_token_score of a 3-D pattern")
    _raises(lambda: m.previous_token_score(torch.rand(1, 2, 4, 5)), "previous_token_score of a non-square pattern")
    _raises(lambda: m.induction_score(torch.rand(1, 2, 6, 6), 2), "induction_score with L != 2 * seq_len")
    _raises(lambda: m.induction_score(torch.rand(2, 6, 6), 3), "induction_score of a 3-D pattern")
    _raises(lambda: m.find_heads([torch.rand(1, 2, 7, 7)]), "find_heads with an odd L")


@check(9)
def ex9_dtype_device(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16, torch.float64):
        p = _patterns()[1].to(dt)
        dtype_is(m.previous_token_score(p), dt)
        dtype_is(m.induction_score(p, 4), dt)
    on_meta(m.previous_token_score(meta(1, 2, 4, 4)))
    on_meta(m.induction_score(meta(1, 2, 4, 4), 2))
    ps = _patterns()
    sn = snapshot(*ps)
    m.find_heads(ps)
    m.previous_token_score(ps[0])
    m.induction_score(ps[1], 4)
    unchanged(sn, ps)


@check(9)
def ex9_find_heads(m):
    ps = _patterns()
    for thr in (0.4, 0.375, 0.2, 0.99):
        got = m.find_heads(ps, threshold=thr) if thr != 0.4 else m.find_heads(ps)
        exp = ref.find_heads(ps, thr)
        if not isinstance(got, dict) or set(got) != {"previous_token", "induction"}:
            raise AssertionError(f"find_heads keys {sorted(got) if isinstance(got, dict) else type(got)}")
        for key in exp:
            lst = list(got[key])
            if not all(isinstance(t, tuple) and len(t) == 2 and all(type(a) is int for a in t) for t in lst):
                raise AssertionError(f"{key}: entries must be (int, int) tuples, got {lst[:2]}")
            if lst != exp[key]:
                raise AssertionError(f"find_heads(threshold={thr})[{key!r}] = {lst}, expected {exp[key]}")
    empty = m.find_heads([])
    if empty != {"previous_token": [], "induction": []}:
        raise AssertionError(f"find_heads([]) = {empty}")


# ---------------------------------------------------------------- exercise 10
class MaxNumel(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.max = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor):
                self.max = max(self.max, o.numel())
        return out


@check(10)
def ex10_cost(m):
    for L, d in ((1, 1), (1024, 768), (7, 3), (4608, 768)):
        got, exp = m.attention_cost(L, d), ref.attention_cost(L, d)
        if set(got) != set(exp):
            raise AssertionError(f"attention_cost keys {sorted(got)}")
        for key in exp:
            if type(got[key]) is not int:
                raise AssertionError(f"attention_cost[{key!r}] is {type(got[key]).__name__}, expected int")
            if got[key] != exp[key]:
                raise AssertionError(f"attention_cost({L}, {d})[{key!r}] = {got[key]}, expected {exp[key]}")


@check(10)
def ex10_crossover(m):
    for d in (768, 4096, 1, 5):
        got = m.crossover_length(d)
        if type(got) is not int:
            raise AssertionError(f"crossover_length({d}) is {type(got).__name__} {got!r}, expected int")
        if got != ref.crossover_length(d):
            raise AssertionError(f"crossover_length({d}) = {got}")


def _osm_input():
    x = rnd(4, 7, seed=2) * 3
    x[1] = float("-inf")
    x[2, 0] = float("-inf")
    x[2, 5] = float("-inf")
    x[3] = torch.tensor([-1e4, -1e4 + 1, -1e4 - 2, -1e4, -1e4 + 3, -1e4, -1e4], dtype=D64)
    return x


@check(10)
def ex10_online_softmax(m):
    x = _osm_input()
    with forbid_softmax():
        for bs in (1, 2, 3, 7, 10):
            out = m.online_softmax(x, bs)
            if torch.isnan(out).any():
                raise AssertionError(f"NaN with block_size={bs}")
            close(out, ref.softmax(x, -1))
        y = torch.tensor([[1.0, 3.0, 2.0], [1e4, -1e4, 1e4 - 1], [-5.0, 1.0, 9.0]], dtype=D64)  # the max grows block by block
        for bs in (1, 2):
            close(m.online_softmax(y, bs), ref.softmax(y, -1))
        z = rnd(2, 3, 5, seed=4)
        close(m.online_softmax(z, 2), ref.softmax(z, -1))


@check(10)
def ex10_online_softmax_misc(m):
    with forbid_softmax():
        for dt in (torch.float32, torch.bfloat16, torch.float16):
            dtype_is(m.online_softmax(rnd(3, 5, dtype=dt), 2), dt)
        x = _osm_input()
        sn = snapshot(x)
        m.online_softmax(x, 3)
        unchanged(sn, [x])
        on_meta(m.online_softmax(meta(3, 5), 2))


TILED_CASES = [((5, 4), (5, 4), (5, 3)), ((3, 4), (7, 4), (7, 2)), ((7, 2), (3, 2), (3, 3)),
               ((2, 5, 4), (2, 5, 4), (2, 5, 4)), ((2, 3, 4, 3), (2, 3, 6, 3), (2, 3, 6, 5)), ((1, 4), (1, 4), (1, 4))]


@check(10)
def ex10_tiled_forward(m):
    with forbid_softmax():
        for sq, sk, sv in TILED_CASES:
            q, k, v = rnd(*sq, seed=1), rnd(*sk, seed=2), rnd(*sv, seed=3)
            for causal in (False, True):
                exp = ref.full_attention(q, k, v, causal)
                for bs in (1, 2, 3, 4, 16):
                    out = m.tiled_attention(q, k, v, bs, causal=causal)
                    if torch.isnan(out).any():
                        raise AssertionError(f"NaN (causal={causal}, block_size={bs}, L_q={sq[-2]}, L_k={sk[-2]})")
                    try:
                        close(out, exp)
                    except AssertionError as e:
                        raise AssertionError(f"causal={causal}, block_size={bs}, L_q={sq[-2]}, L_k={sk[-2]}: {e}")
        q = rnd(3, 4, seed=1) * 300  # large scores
        close(m.tiled_attention(q, rnd(5, 4, seed=2) * 300, rnd(5, 2, seed=3), 2), ref.full_attention(q, rnd(5, 4, seed=2) * 300, rnd(5, 2, seed=3)))


@check(10)
def ex10_tiled_grads(m):
    with forbid_softmax():
        for (Lq, Lk), causal in (((6, 4), True), ((3, 7), True), ((4, 5), False)):
            same_grads(lambda q, k, v: m.tiled_attention(q, k, v, 2, causal=causal),
                       lambda q, k, v: ref.full_attention(q, k, v, causal),
                       lambda: [rnd(2, Lq, 3, seed=1, grad=True), rnd(2, Lk, 3, seed=2, grad=True), rnd(2, Lk, 2, seed=3, grad=True)])


@check(10)
def ex10_tiled_memory(m):
    with forbid_softmax():
        for causal in (False, True):
            L, bs = 48, 4
            q, k, v = rnd(L, 2, seed=1), rnd(L, 2, seed=2), rnd(L, 2, seed=3)
            mode = MaxNumel()
            with mode:
                m.tiled_attention(q, k, v, bs, causal=causal)
            if mode.max >= L * L // 4:
                raise AssertionError(f"largest tensor has {mode.max} elements at L = {L} (L^2 = {L * L}): grows like L^2, not L * block_size")


@check(10)
def ex10_tiled_misc(m):
    with forbid_softmax():
        for dt in (torch.float32, torch.bfloat16, torch.float16):
            dtype_is(m.tiled_attention(rnd(3, 4, dtype=dt), rnd(5, 4, dtype=dt), rnd(5, 2, dtype=dt), 2, causal=True), dt)
        q, k, v = rnd(2, 3, 4), rnd(2, 5, 4), rnd(2, 5, 2)
        sn = snapshot(q, k, v)
        m.tiled_attention(q, k, v, 2, causal=True)
        unchanged(sn, [q, k, v])
        on_meta(m.tiled_attention(meta(2, 3, 4), meta(2, 5, 4), meta(2, 5, 2), 2, causal=True))
