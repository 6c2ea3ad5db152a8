"""Per-exercise checks. Each test_exN(mod) yields (name, callable); a callable raises on failure."""
import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode

import refs

F64, F32 = torch.float64, torch.float32
G = torch.Generator().manual_seed(0)


def rn(*shape, dtype=F64, grad=False):
    t = torch.randn(*shape, generator=G, dtype=F64).to(dtype)
    return t.requires_grad_(grad)


def tol(dtype):
    return {F64: 1e-10, F32: 1e-5, torch.float16: 2e-2, torch.bfloat16: 5e-2}[dtype]


def close(got, want, dtype=None, what="value"):
    dtype = dtype or want.dtype
    assert isinstance(got, torch.Tensor), f"{what}: not a tensor ({type(got)})"
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == dtype, f"{what}: dtype {got.dtype} != {dtype}"
    t = tol(dtype)
    g, w = got.detach().double(), want.detach().double()
    ok = torch.allclose(g, w, rtol=t, atol=t, equal_nan=False)
    assert ok, f"{what}: max abs diff {(g - w).abs().nan_to_num(1e30).max().item():.3g}"


def unchanged(fn, *tensors):
    before = [(t.shape, t.stride(), t.detach().clone()) for t in tensors]
    out = fn()
    for i, (t, (sh, st, val)) in enumerate(zip(tensors, before)):
        assert t.shape == sh and t.stride() == st, f"input {i} changed shape/stride"
        assert torch.equal(t.detach(), val), f"input {i} changed values"
    return out


def grads(fn_got, fn_ref, inputs):
    """Compare gradients of sum(out * fixed random weights) wrt inputs."""
    def run(fn):
        xs = [t.detach().clone().requires_grad_(True) for t in inputs]
        out = fn(*xs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        loss = 0
        for o in outs:
            w = torch.randn(o.shape, generator=torch.Generator().manual_seed(1), dtype=F64).to(o.dtype)
            loss = loss + (o * w).sum()
        gs = torch.autograd.grad(loss, xs, allow_unused=True)
        return gs
    gg, gr = run(fn_got), run(fn_ref)
    for i, (a, b) in enumerate(zip(gg, gr)):
        assert a is not None, f"grad {i}: None (no gradient reaches this input)"
        assert torch.isfinite(a).all(), f"grad {i}: not finite"
        close(a, b, what=f"grad {i}")


class MaxTensor(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.max = 0
        self.shapes = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.numel() > self.max:
                self.max = o.numel()
                self.shapes.append(tuple(o.shape))
        return out


def raises(exc, fn):
    try:
        fn()
    except exc:
        return
    raise AssertionError(f"did not raise {exc.__name__}")


# ---------------------------------------------------------------- exercise 1
def test_ex1(m):
    def proj(xshape, dm, dk, dv, dtype=F64, noncontig=False):
        def t():
            if noncontig:
                x = rn(*xshape[:-3], xshape[-2], xshape[-3], xshape[-1], dtype=dtype).transpose(-3, -2)
            else:
                x = rn(*xshape, dtype=dtype)
            wq, wk, wv = rn(dm, dk, dtype=dtype), rn(dm, dk, dtype=dtype), rn(dm, dv, dtype=dtype)
            got = unchanged(lambda: m.project(x, wq, wk, wv), x, wq, wk, wv)
            for g, w in zip(got, refs.project(x.double(), wq.double(), wk.double(), wv.double())):
                close(g, w.to(dtype), dtype)
        return t

    def fused(xshape, dm, d, dtype=F64):
        def t():
            x, w = rn(*xshape, dtype=dtype), rn(dm, 3 * d, dtype=dtype)
            got = unchanged(lambda: m.fused_project(x, w), x, w)
            want = refs.project(x.double(), w[:, :d].double(), w[:, d:2 * d].double(), w[:, 2 * d:].double())
            for g, ww in zip(got, want):
                close(g, ww.to(dtype), dtype)
        return t

    yield "project 3d square", proj((2, 5, 4), 4, 4, 4)
    yield "project 3d rect", proj((2, 5, 4), 4, 3, 6)
    yield "project 2d", proj((5, 4), 4, 3, 6)
    yield "project 4d", proj((2, 3, 5, 4), 4, 3, 6)
    yield "project f32", proj((2, 5, 4), 4, 3, 6, F32)
    yield "project noncontig", proj((2, 5, 4), 4, 3, 6, noncontig=True)
    yield "project bf16", proj((2, 5, 4), 4, 3, 6, torch.bfloat16)
    yield "fused d=3", fused((2, 5, 3), 3, 3)
    yield "fused d!=dm", fused((2, 5, 4), 4, 2)
    yield "fused d=dm=4", fused((2, 5, 4), 4, 4)
    yield "fused 2d f32", fused((5, 6), 6, 6, F32)

    def g_project():
        x, wq, wk, wv = rn(2, 5, 4), rn(4, 3), rn(4, 3), rn(4, 6)
        grads(m.project, refs.project, [x, wq, wk, wv])
    yield "project grads", g_project

    def g_fused():
        x, w = rn(2, 5, 4), rn(4, 9)
        grads(m.fused_project, lambda x, w: refs.project(x, w[:, :3], w[:, 3:6], w[:, 6:]), [x, w])
    yield "fused grads", g_fused


# ---------------------------------------------------------------- exercise 2
def test_ex2(m):
    def t(qs, ks, dtype=F64):
        def f():
            q, k = rn(*qs, dtype=dtype), rn(*ks, dtype=dtype)
            got = unchanged(lambda: m.attention_scores(q, k), q, k)
            close(got, refs.scores(q.double(), k.double()).to(dtype), dtype)
        return f
    yield "3d", t((2, 3, 4), (2, 5, 4))
    yield "2d", t((3, 4), (5, 4))
    yield "4d", t((2, 2, 3, 4), (2, 2, 5, 4))
    yield "square", t((2, 4, 4), (2, 4, 4))
    yield "f32", t((2, 3, 4), (2, 5, 4), F32)
    yield "f16", t((2, 3, 4), (2, 5, 4), torch.float16)

    def g():
        grads(m.attention_scores, refs.scores, [rn(2, 3, 4), rn(2, 5, 4)])
    yield "grads", g


# ---------------------------------------------------------------- exercise 3
def test_ex3(m):
    def sc(shape, dk, dtype=F64):
        def f():
            s = rn(*shape, dtype=dtype)
            got = unchanged(lambda: m.scale_scores(s, dk), s)
            close(got, (s.double() / math.sqrt(dk)).to(dtype), dtype)
        return f
    for dk in (3, 8, 16, 64, 128):
        yield f"scale dk={dk}", sc((2, 3, 5), dk)
    yield "scale f32", sc((2, 3, 5), 8, F32)

    def ss(qs, ks, dtype=F64):
        def f():
            q, k = rn(*qs, dtype=dtype), rn(*ks, dtype=dtype)
            got = unchanged(lambda: m.scaled_scores(q, k), q, k)
            close(got, (refs.scores(q.double(), k.double()) / math.sqrt(q.size(-1))).to(dtype), dtype)
        return f
    yield "scaled 2d", ss((3, 8), (5, 8))
    yield "scaled 3d", ss((2, 3, 8), (2, 5, 8))
    yield "scaled 4d", ss((2, 2, 3, 6), (2, 2, 5, 6))
    yield "scaled f32", ss((2, 3, 8), (2, 5, 8), F32)

    def g():
        grads(m.scaled_scores, lambda q, k: refs.scores(q, k) / math.sqrt(q.size(-1)), [rn(2, 3, 8), rn(2, 5, 8)])
        grads(lambda s: m.scale_scores(s, 8), lambda s: s / math.sqrt(8), [rn(2, 3, 5)])
    yield "grads", g

    def leaf():
        s = rn(2, 3, 5, grad=True)
        out = m.scale_scores(s, 4)
        out.sum().backward()
        assert torch.allclose(s.grad, torch.full_like(s, 0.5))
    yield "leaf requires_grad", leaf


# ---------------------------------------------------------------- exercise 4
def test_ex4(m):
    def cm():
        for L in range(1, 7):
            got = m.causal_mask(L)
            assert got.dtype == torch.bool and torch.equal(got, refs.causal(L)), f"L={L}"
    yield "causal", cm

    def cm_dev():
        got = m.causal_mask(4, device="meta")
        assert got.device.type == "meta", got.device
    yield "causal device", cm_dev

    def am(sshape, mask, dtype=F64):
        def f():
            s = rn(*sshape, dtype=dtype)
            got = unchanged(lambda: m.apply_mask(s, mask), s)
            want = s.masked_fill(~mask, float("-inf"))
            assert got.shape == want.shape and got.dtype == dtype, (got.shape, got.dtype)
            assert torch.equal(got, want), "values differ"
        return f
    yield "apply causal", am((2, 4, 4), refs.causal(4))
    yield "apply pad", am((3, 4, 5), torch.tensor([[[1, 1, 0, 0, 0]], [[1] * 5], [[0] * 5]], dtype=torch.bool))
    yield "apply f16", am((2, 4, 4), refs.causal(4), torch.float16)
    yield "apply f32", am((2, 4, 4), refs.causal(4), F32)

    def am_grad():
        mask = refs.causal(4)
        grads(lambda s: m.apply_mask(s, mask).exp(), lambda s: s.masked_fill(~mask, float("-inf")).exp(), [rn(2, 4, 4)])
    yield "apply grads", am_grad

    def am_leaf():
        s = rn(2, 4, 4, grad=True)
        m.apply_mask(s, refs.causal(4)).exp().sum().backward()
    yield "apply leaf", am_leaf

    def pm():
        lengths = torch.tensor([0, 2, 5, 3])
        got = unchanged(lambda: m.padding_mask(lengths, 5), lengths)
        want = (torch.arange(5)[None, :] < lengths[:, None])[:, None, :]
        assert got.dtype == torch.bool, got.dtype
        assert got.shape == want.shape, got.shape
        assert torch.equal(got, want)
        lengths = torch.tensor([1, 2])
        assert torch.equal(m.padding_mask(lengths, 4), (torch.arange(4)[None, :] < lengths[:, None])[:, None, :])
    yield "padding", pm

    def pm_dev():
        got = m.padding_mask(torch.tensor([1, 2], device="meta"), 4)
        assert got.device.type == "meta"
    yield "padding device", pm_dev


# ---------------------------------------------------------------- exercise 5
def test_ex5(m):
    def sm(x, dim=-1, dtype=F64):
        def f():
            xx = x.to(dtype)
            got = unchanged(lambda: m.softmax(xx, dim=dim), xx)
            close(got, refs.softmax(xx.double(), dim).to(dtype), dtype)
        return f
    yield "softmax rand", sm(rn(3, 4, 5))
    yield "softmax dim0", sm(rn(3, 4, 5), 0)
    yield "softmax dim1", sm(rn(3, 4, 5), 1)
    big = torch.tensor([[1e4, 0.0, -1e4], [-1e4, -1e4 + 1, -1e4 + 2], [5.0, 1e4, 1e4]], dtype=F64)
    yield "softmax huge", sm(big)
    neg = torch.tensor([[0.0, float("-inf"), 1.0], [float("-inf")] * 3, [2.0, 2.0, float("-inf")]], dtype=F64)
    yield "softmax -inf rows", sm(neg)
    yield "softmax f32", sm(rn(3, 4, 5), dtype=F32)
    yield "softmax f16", sm(rn(3, 4, 5), dtype=torch.float16)

    def sm_grad():
        grads(m.softmax, refs.softmax, [neg])
        grads(lambda x: m.softmax(x, 0), lambda x: refs.softmax(x, 0), [rn(3, 4)])
    yield "softmax grads", sm_grad

    def at(qs, ks, vs, mask=None, dtype=F64):
        def f():
            q, k, v = rn(*qs, dtype=dtype), rn(*ks, dtype=dtype), rn(*vs, dtype=dtype)
            out, w = unchanged(lambda: m.scaled_dot_product_attention(q, k, v, mask), q, k, v)
            ro, rw = refs.sdpa(q.double(), k.double(), v.double(), mask)
            close(w, rw.to(dtype), dtype, "weights")
            close(out, ro.to(dtype), dtype, "output")
        return f
    yield "sdpa nomask", at((2, 3, 4), (2, 5, 4), (2, 5, 6))
    yield "sdpa causal", at((2, 5, 4), (2, 5, 4), (2, 5, 4), refs.causal(5))
    padm = torch.tensor([[[1, 1, 1, 0, 0]], [[0, 0, 0, 0, 0]]], dtype=torch.bool)
    yield "sdpa padding+full", at((2, 3, 4), (2, 5, 4), (2, 5, 6), padm)
    yield "sdpa f32", at((2, 5, 4), (2, 5, 4), (2, 5, 4), refs.causal(5), F32)

    def at_grad():
        grads(lambda q, k, v: m.scaled_dot_product_attention(q, k, v, padm),
              lambda q, k, v: refs.sdpa(q, k, v, padm), [rn(2, 3, 4), rn(2, 5, 4), rn(2, 5, 6)])
    yield "sdpa grads", at_grad


# ---------------------------------------------------------------- exercise 6
def mha_sd(D, bias=True, dtype=F64):
    sd = {"qkv.weight": rn(3 * D, D) / math.sqrt(D), "out.weight": rn(D, D) / math.sqrt(D)}
    if bias:
        sd["qkv.bias"], sd["out.bias"] = rn(3 * D), rn(D)
    return {k: v.to(dtype) for k, v in sd.items()}


def test_ex6(m):
    def sp():
        x = rn(2, 5, 12)
        got = unchanged(lambda: m.split_heads(x, 3), x)
        close(got, refs.split_heads(x, 3))
    yield "split", sp

    def mg():
        y = rn(2, 5, 3, 4).transpose(1, 2)  # (2, 3, 5, 4) non-contiguous
        got = unchanged(lambda: m.merge_heads(y), y)
        close(got, refs.merge_heads(y))
        y2 = rn(2, 3, 5, 4)
        close(m.merge_heads(y2), refs.merge_heads(y2))
    yield "merge", mg

    def fw(D=12, H=3, bias=True, mask=None, dtype=F64, L=5):
        def f():
            mod = m.MultiHeadAttention(D, H, bias=bias).to(dtype)
            sd = mha_sd(D, bias, dtype)
            mod.load_state_dict(sd)
            x = rn(2, L, D, dtype=dtype)
            got = unchanged(lambda: mod(x, mask), x)
            want = refs.mha({k: v.double() for k, v in sd.items()}, x.double(), H, mask, bias)
            close(got, want.to(dtype), dtype)
        return f
    yield "mha causal", fw()
    yield "mha nobias", fw(bias=False)
    yield "mha full mask", fw(mask=torch.ones(5, 5, dtype=torch.bool))
    padm = torch.tensor([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=torch.bool).view(2, 1, 1, 5)
    yield "mha padding (one all-pad)", fw(mask=padm)
    yield "mha f32", fw(dtype=F32)

    def gr():
        mod = m.MultiHeadAttention(12, 3).double()
        sd = mha_sd(12)
        mod.load_state_dict(sd)
        grads(lambda x: mod(x, padm), lambda x: refs.mha(sd, x, 3, padm), [rn(2, 5, 12)])
        x = rn(2, 5, 12)
        mod(x).sum().backward()
        for name, p in mod.named_parameters():
            assert p.grad is not None and torch.isfinite(p.grad).all(), name
    yield "mha grads", gr


# ---------------------------------------------------------------- exercise 7
def gqa_sd(D, H, Hkv, dtype=F64):
    d = D // H
    sd = {"q_proj.weight": rn(H * d, D), "k_proj.weight": rn(Hkv * d, D), "v_proj.weight": rn(Hkv * d, D),
          "o_proj.weight": rn(D, H * d)}
    return {k: (v / math.sqrt(D)).to(dtype) for k, v in sd.items()}


def test_ex7(m):
    def rk(n, Hkv=2):
        def f():
            x = rn(2, Hkv, 5, 4)
            got = unchanged(lambda: m.repeat_kv(x, n), x)
            close(got, refs.repeat_kv(x, n))
        return f
    yield "repeat n=1", rk(1)
    yield "repeat n=3", rk(3)
    yield "repeat Hkv=1 n=4", rk(4, 1)

    def fw(D=24, H=6, Hkv=2, mask=None, dtype=F64, L=5):
        def f():
            mod = m.GroupedQueryAttention(D, H, Hkv).to(dtype)
            sd = gqa_sd(D, H, Hkv, dtype)
            mod.load_state_dict(sd)
            x = rn(2, L, D, dtype=dtype)
            got = unchanged(lambda: mod(x, mask), x)
            want = refs.gqa({k: v.double() for k, v in sd.items()}, x.double(), H, Hkv, mask)
            close(got, want.to(dtype), dtype)
        return f
    yield "gqa 6/2", fw()
    yield "gqa mqa", fw(Hkv=1)
    yield "gqa mha", fw(Hkv=6)
    yield "gqa full mask", fw(mask=torch.ones(5, 5, dtype=torch.bool))
    padm = torch.tensor([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], dtype=torch.bool).view(2, 1, 1, 5)
    yield "gqa padding", fw(mask=padm)
    yield "gqa f32", fw(dtype=F32)

    def gr():
        mod = m.GroupedQueryAttention(24, 6, 2).double()
        sd = gqa_sd(24, 6, 2)
        mod.load_state_dict(sd)
        grads(lambda x: mod(x, padm), lambda x: refs.gqa(sd, x, 6, 2, padm), [rn(2, 5, 24)])
    yield "gqa grads", gr


# ---------------------------------------------------------------- exercise 8
def test_ex8(m):
    def kb():
        assert m.kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
        for args in [(2, 4, 8, 10, 3, 4), (1, 1, 1, 1, 1, 1), (12, 8, 64, 100, 2, 2)]:
            got = m.kv_cache_bytes(*args)
            assert type(got) is int and got == refs.kv_bytes(*args), (args, got)
    yield "bytes", kb

    def basic(dtype=F64):
        def f():
            c = m.KVCache(2, 3, 4, 10, dtype=dtype)
            assert len(c) == 0
            ks, vs = [], []
            for T in (3, 1, 5):
                k, v = rn(2, 3, T, 4, dtype=dtype), rn(2, 3, T, 4, dtype=dtype)
                ks.append(k), vs.append(v)
                K, V = unchanged(lambda: c.update(k, v), k, v)
                close(K, torch.cat(ks, 2), dtype, "keys")
                close(V, torch.cat(vs, 2), dtype, "values")
                assert len(c) == sum(t.size(2) for t in ks), len(c)
        return f
    yield "cache f64", basic()
    yield "cache f32", basic(F32)

    def zeros_count():
        c = m.KVCache(1, 1, 2, 5, dtype=F64)
        c.update(torch.zeros(1, 1, 2, 2, dtype=F64), torch.zeros(1, 1, 2, 2, dtype=F64))
        assert len(c) == 2, len(c)
    yield "zero keys count", zeros_count

    def views():
        c = m.KVCache(1, 2, 3, 8, dtype=F64)
        K1, _ = c.update(rn(1, 2, 2, 3), rn(1, 2, 2, 3))
        p = K1.untyped_storage().data_ptr()
        K2, _ = c.update(rn(1, 2, 3, 3), rn(1, 2, 3, 3))
        assert K2.untyped_storage().data_ptr() == p, "storage reallocated on update"
        c.reset()
        assert len(c) == 0
        K3, _ = c.update(rn(1, 2, 1, 3), rn(1, 2, 1, 3))
        assert K3.untyped_storage().data_ptr() == p, "storage reallocated on reset"
        assert K3.shape[2] == 1
    yield "storage views", views

    def overflow():
        c = m.KVCache(1, 1, 2, 4, dtype=F64)
        c.update(rn(1, 1, 3, 2), rn(1, 1, 3, 2))
        raises(ValueError, lambda: c.update(rn(1, 1, 2, 2), rn(1, 1, 2, 2)))
        assert len(c) == 3, len(c)
        K, _ = c.update(rn(1, 1, 1, 2), rn(1, 1, 1, 2))  # exactly full
        assert len(c) == 4 and K.shape[2] == 4
    yield "overflow", overflow

    def chunks(dtype=F64, Hkv=2):
        def f():
            mod = m.CachedGroupedQueryAttention(24, 6, Hkv).to(dtype)
            sd = gqa_sd(24, 6, Hkv, dtype)
            mod.load_state_dict(sd)
            x = rn(2, 9, 24, dtype=dtype)
            want = refs.gqa({k: v.double() for k, v in sd.items()}, x.double(), 6, Hkv).to(dtype)
            close(mod(x), want, dtype, "cache=None")
            c = m.KVCache(2, Hkv, 4, 16, dtype=dtype)
            outs, s = [], 0
            for T in (3, 1, 5):
                outs.append(mod(x[:, s:s + T], c))
                s += T
            assert len(c) == 9
            close(torch.cat(outs, 1), want, dtype, "chunked")
        return f
    yield "chunked f64", chunks()
    yield "chunked f32 mqa", chunks(F32, 1)

    def gr():
        mod = m.CachedGroupedQueryAttention(24, 6, 2).double()
        sd = gqa_sd(24, 6, 2)
        mod.load_state_dict(sd)
        x = rn(2, 5, 24)
        grads(lambda x: mod(x, m.KVCache(2, 2, 4, 8, dtype=F64)), lambda x: refs.gqa(sd, x, 6, 2), [x])
        mod.zero_grad()
        mod(x, m.KVCache(2, 2, 4, 8, dtype=F64)).pow(2).sum().backward()
        for n_, p in mod.named_parameters():
            assert p.grad is not None and p.grad.abs().sum() > 0, f"no grad for {n_}"
    yield "grads", gr


# ---------------------------------------------------------------- exercise 9
def rand_pattern(B, H, L, dtype=F64):
    s = rn(B, H, L, L).masked_fill(~refs.causal(L), float("-inf"))
    return refs.softmax(s).to(dtype)


def test_ex9(m):
    def rt():
        g1 = torch.Generator().manual_seed(5)
        t = m.repeated_tokens(3, 7, 11, generator=g1)
        assert t.dtype == torch.long and t.shape == (3, 14) and t.device.type == "cpu"
        assert torch.equal(t[:, :7], t[:, 7:])
        g2 = torch.Generator().manual_seed(5)
        ref = torch.randint(11, (3, 7), generator=g2)
        assert torch.equal(t, torch.cat([ref, ref], 1)), "not the same tokens as randint(vocab_size, ...) with the seed"
        t = m.repeated_tokens(40, 40, 2, generator=torch.Generator().manual_seed(1))
        assert set(t.unique().tolist()) == {0, 1}, t.unique()
        t = m.repeated_tokens(2, 3, 1)
        assert (t == 0).all()
    yield "repeated_tokens", rt

    def ps(dtype=F64):
        def f():
            p = rand_pattern(2, 3, 6, dtype)
            got = unchanged(lambda: m.previous_token_score(p), p)
            close(got, refs.prev_score(p.double()).to(dtype), dtype)
            perfect = torch.zeros(1, 2, 5, 5, dtype=dtype)
            perfect[0, 0, 0, 0] = 1
            for i in range(1, 5):
                perfect[0, 0, i, i - 1] = 1
                perfect[0, 1, i, i] = 1
            close(m.previous_token_score(perfect), torch.tensor([1.0, 0.0], dtype=dtype), dtype)
        return f
    yield "prev f64", ps()
    yield "prev f32", ps(F32)

    def ps_err():
        raises(ValueError, lambda: m.previous_token_score(torch.rand(2, 4, 4)))
        raises(ValueError, lambda: m.previous_token_score(torch.rand(1, 2, 4, 5)))
        raises(ValueError, lambda: m.previous_token_score(torch.ones(1, 2, 1, 1)))
    yield "prev errors", ps_err

    def ind(n=4, dtype=F64):
        def f():
            p = rand_pattern(2, 3, 2 * n, dtype)
            got = unchanged(lambda: m.induction_score(p, n), p)
            close(got, refs.induction(p.double(), n).to(dtype), dtype)
        return f
    yield "induction n=4", ind()
    yield "induction n=1", ind(1)
    yield "induction f32", ind(3, F32)

    def ind_err():
        raises(ValueError, lambda: m.induction_score(torch.rand(1, 2, 6, 6), 4))
        raises(ValueError, lambda: m.induction_score(torch.rand(2, 6, 6), 3))
    yield "induction errors", ind_err

    def fh():
        n, L = 4, 8
        prev = torch.zeros(1, 1, L, L, dtype=F64)
        prev[0, 0, 0, 0] = 1
        for i in range(1, L):
            prev[0, 0, i, i - 1] = 1
        indp = torch.zeros(1, 1, L, L, dtype=F64)
        for i in range(L):
            j = i - n + 1 if i >= n else 0
            indp[0, 0, i, j] = 1
        uni = rand_pattern(1, 1, L)
        layer0 = torch.cat([uni, prev], 1)
        layer1 = torch.cat([indp, uni, prev], 1)
        got = m.find_heads([layer0, layer1])
        want = {"previous_token": [(0, 1), (1, 2)], "induction": [(1, 0)]}
        assert got == want, got
        for key in got:
            for pair in got[key]:
                assert type(pair) is tuple and all(type(i) is int for i in pair), pair
        assert m.find_heads([uni]) == {"previous_token": [], "induction": []}
        raises(ValueError, lambda: m.find_heads([rand_pattern(1, 1, 7)]))
    yield "find_heads", fh


# ---------------------------------------------------------------- exercise 10
def test_ex10(m):
    def cost():
        for L, d in ((1, 1), (1024, 768), (7, 3)):
            got = m.attention_cost(L, d)
            want = {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}
            assert got == want and all(type(v) is int for v in got.values()), got
    yield "cost", cost

    def cross():
        for d in (768, 4096, 1, 5):
            got = m.crossover_length(d)
            assert type(got) is int and got == 6 * d, got
    yield "crossover", cross

    def os_(x, bs, dtype=F64):
        def f():
            xx = x.to(dtype)
            got = unchanged(lambda: m.online_softmax(xx, bs), xx)
            close(got, refs.softmax(xx.double()).to(dtype), dtype)
        return f
    x = rn(3, 4, 10)
    x[0, 0] = torch.arange(10, dtype=F64)  # max in the last block
    for bs in (1, 3, 10, 15):
        yield f"online bs={bs}", os_(x, bs)
    neg = torch.tensor([[0.0, float("-inf"), 1.0, 1e4], [float("-inf")] * 4, [-1e4, 2.0, 3.0, float("-inf")]], dtype=F64)
    yield "online -inf/huge", os_(neg, 2)
    yield "online f32", os_(x, 3, F32)

    def ta(Lq, Lk, bs, causal, dtype=F64, lead=(2, 3)):
        def f():
            q, k, v = rn(*lead, Lq, 4, dtype=dtype), rn(*lead, Lk, 4, dtype=dtype), rn(*lead, Lk, 5, dtype=dtype)
            got = unchanged(lambda: m.tiled_attention(q, k, v, bs, causal=causal), q, k, v)
            close(got, refs.attention_full(q.double(), k.double(), v.double(), causal).to(dtype), dtype)
        return f
    for Lq, Lk, bs, c in ((7, 7, 3, False), (7, 7, 3, True), (4, 9, 2, True), (9, 4, 3, True), (5, 8, 4, False),
                          (6, 6, 10, True), (1, 9, 4, True), (8, 8, 8, True)):
        yield f"tiled {Lq}x{Lk} bs={bs} causal={c}", ta(Lq, Lk, bs, c)
    yield "tiled f32", ta(7, 7, 3, True, F32)
    yield "tiled 2d", ta(6, 6, 4, True, lead=())

    def ta_grad():
        for Lq, Lk, c in ((7, 7, True), (9, 4, True), (5, 8, False)):
            grads(lambda q, k, v: m.tiled_attention(q, k, v, 3, causal=c),
                  lambda q, k, v: refs.attention_full(q, k, v, c), [rn(2, Lq, 4), rn(2, Lk, 4), rn(2, Lk, 5)])
    yield "tiled grads", ta_grad

    def mem():
        L, bs = 64, 8
        q, k, v = rn(1, L, 4), rn(1, L, 4), rn(1, L, 4)
        with MaxTensor() as mt:
            m.tiled_attention(q, k, v, bs, causal=True)
        assert mt.max < L * L, f"largest tensor {mt.max} elements, shapes {mt.shapes[-1]}"
    yield "memory", mem


TESTS = {i: globals()[f"test_ex{i}"] for i in range(1, 11)}
