"""The corpus checker: python check.py FILE... | python check.py all (writes results.json)."""
import json
import math
import os
import re
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ref  # noqa: E402
from common import (F16, F32, F64, BF16, Fail, Report, banned_softmax, close, grad_close, grads_of,  # noqa: E402
                    leaf, load, need, rnd, runs, snapshot, unchanged)

META = "meta"


# ----------------------------------------------------------------------------------- exercise 1
def ex1(m):
    R = Report()
    x = rnd(2, 3, 5, 4)
    wq, wk, wv = rnd(4, 3, seed=1), rnd(4, 3, seed=2), rnd(4, 6, seed=3)
    wqkv = rnd(4, 9, seed=4)

    def cmp_all(x, wq, wk, wv, wqkv, dtype=None):
        for g, e, n in zip(m.project(x, wq, wk, wv), ref.project(x, wq, wk, wv), "qkv"):
            close(g, e, dtype, f"project {n}")
        got = m.fused_project(x, wqkv)
        need(len(got) == 3, "fused_project must return 3 tensors")
        for g, e, n in zip(got, ref.fused_project(x, wqkv), "qkv"):
            close(g, e, dtype, f"fused_project {n}")

    @R.test("batched values (d_model=4, d_k=3, d_v=6; fused d=3)")
    def _():
        cmp_all(x, wq, wk, wv, wqkv)

    @R.test("unbatched (L, d_model)")
    def _():
        cmp_all(x[0, 0], wq, wk, wv, wqkv)

    @R.test("square weights d_model = d_k = d_v = 4")
    def _():
        cmp_all(x, rnd(4, 4, seed=5), rnd(4, 4, seed=6), rnd(4, 4, seed=7), rnd(4, 12, seed=8))

    @R.test("non-contiguous x")
    def _():
        xn = rnd(5, 3, 2, 4, seed=9).permute(2, 1, 0, 3)
        need(not xn.is_contiguous(), "setup")
        cmp_all(xn, wq, wk, wv, wqkv)

    for dt in (F32, F16, BF16):
        @R.test(f"dtype {dt}")
        def _(dt=dt):
            cmp_all(x.to(dt), wq.to(dt), wk.to(dt), wv.to(dt), wqkv.to(dt), dt)

    @R.test("gradients of project")
    def _():
        grad_close(m.project, ref.project, [x, wq, wk, wv], "project grad")

    @R.test("gradients of fused_project")
    def _():
        grad_close(m.fused_project, ref.fused_project, [x, wqkv], "fused grad")

    @R.test("inputs unchanged")
    def _():
        s = snapshot(x, wq, wk, wv, wqkv)
        m.project(x, wq, wk, wv)
        m.fused_project(x, wqkv)
        unchanged(s)

    @R.test("device follows inputs (meta)")
    def _():
        xm, w1, w2 = (t.to(META) for t in (x, wq, wqkv))
        for t in list(m.project(xm, w1, w1, w1)) + list(m.fused_project(xm, w2)):
            need(t.device.type == META, f"output on {t.device}")

    smoke = {
        "project": runs(lambda: m.project(rnd(5, 4), rnd(4, 4), rnd(4, 4), rnd(4, 4))),
        "fused_project": runs(lambda: m.fused_project(rnd(5, 4), rnd(4, 12))),
    }
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 2
def ex2(m):
    R = Report()
    f, r = m.attention_scores, ref.attention_scores
    cases = {
        "2-D (L_q=4, L_k=6)": (rnd(4, 3), rnd(6, 3, seed=1)),
        "2-D square (L=5)": (rnd(5, 3), rnd(5, 3, seed=1)),
        "3-D (B=2, L_q=4, L_k=6)": (rnd(2, 4, 3), rnd(2, 6, 3, seed=1)),
        "4-D (B=2, H=3, L=5)": (rnd(2, 3, 5, 8), rnd(2, 3, 5, 8, seed=1)),
    }
    for name, (q, k) in cases.items():
        @R.test(f"values {name}")
        def _(q=q, k=k):
            close(f(q, k), r(q, k))

    q4, k4 = cases["4-D (B=2, H=3, L=5)"]
    for dt in (F32, F16, BF16):
        @R.test(f"dtype {dt}")
        def _(dt=dt):
            close(f(q4.to(dt), k4.to(dt)), r(q4.to(dt), k4.to(dt)), dt)

    @R.test("non-contiguous inputs")
    def _():
        q, k = rnd(3, 2, 5, 4).transpose(0, 1), rnd(3, 2, 6, 4, seed=1).transpose(0, 1)
        close(f(q, k), r(q, k))

    @R.test("gradients")
    def _():
        grad_close(f, r, [q4, k4])

    @R.test("inputs unchanged")
    def _():
        q, k = rnd(2, 4, 3), rnd(2, 6, 3, seed=1)
        s = snapshot(q, k)
        f(q, k)
        unchanged(s)

    @R.test("device follows inputs (meta)")
    def _():
        out = f(q4.to(META), k4.to(META))
        need(out.device.type == META, f"output on {out.device}")

    smoke = {"attention_scores": runs(lambda: f(rnd(4, 3), rnd(4, 3)), lambda: f(rnd(2, 4, 3), rnd(2, 4, 3)))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 3
def ex3(m):
    R = Report()
    for d_k in (1, 3, 4, 8, 64):
        @R.test(f"scale_scores d_k={d_k}")
        def _(d_k=d_k):
            s = rnd(2, 3, 4, 5, scale=3)
            close(m.scale_scores(s, d_k), ref.scale_scores(s, d_k))

    cases = {"2-D L_q=4 L_k=6 d=8": (rnd(4, 8), rnd(6, 8, seed=1)),
             "4-D d=16 L=5": (rnd(2, 3, 5, 16), rnd(2, 3, 5, 16, seed=1)),
             "3-D d=3 L_q=2 L_k=7": (rnd(2, 2, 3), rnd(2, 7, 3, seed=1)),
             "3-D d=8 L=8": (rnd(2, 8, 8), rnd(2, 8, 8, seed=1))}
    for name, (q, k) in cases.items():
        @R.test(f"scaled_scores {name}")
        def _(q=q, k=k):
            close(m.scaled_scores(q, k), ref.scaled_scores(q, k))

    for dt in (F32, F16, BF16):
        @R.test(f"dtype {dt}")
        def _(dt=dt):
            s = rnd(3, 4, scale=3).to(dt)
            close(m.scale_scores(s, 8), ref.scale_scores(s, 8), dt)
            q, k = rnd(2, 4, 8).to(dt), rnd(2, 5, 8, seed=1).to(dt)
            close(m.scaled_scores(q, k), ref.scaled_scores(q, k), dt)

    @R.test("scale_scores returns a new tensor; input unchanged")
    def _():
        s = rnd(3, 4)
        sn = snapshot(s)
        out = m.scale_scores(s, 9)
        unchanged(sn)
        need(out is not s and out.data_ptr() != s.data_ptr(), "returned the input tensor itself")

    @R.test("gradients scale_scores")
    def _():
        grad_close(lambda s: m.scale_scores(s, 8), lambda s: ref.scale_scores(s, 8), [rnd(3, 4)])

    @R.test("gradients scaled_scores")
    def _():
        grad_close(m.scaled_scores, ref.scaled_scores, [rnd(2, 4, 8), rnd(2, 6, 8, seed=1)])

    @R.test("scaled_scores inputs unchanged")
    def _():
        q, k = rnd(2, 4, 8), rnd(2, 6, 8, seed=1)
        sn = snapshot(q, k)
        m.scaled_scores(q, k)
        unchanged(sn)

    @R.test("device follows inputs (meta)")
    def _():
        o1 = m.scale_scores(rnd(3, 4).to(META), 8)
        o2 = m.scaled_scores(rnd(2, 4, 8).to(META), rnd(2, 6, 8).to(META))
        need(o1.device.type == META and o2.device.type == META, "output not on the inputs' device")

    smoke = {"scale_scores": runs(lambda: m.scale_scores(rnd(3, 4), 4)),
             "scaled_scores": runs(lambda: m.scaled_scores(rnd(4, 4), rnd(4, 4)))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 4
def ex4(m):
    R = Report()
    for L in (1, 2, 3, 6):
        @R.test(f"causal_mask L={L}")
        def _(L=L):
            close(m.causal_mask(L), ref.causal_mask(L))

    @R.test("causal_mask device (meta)")
    def _():
        out = m.causal_mask(4, device=META)
        need(out.device.type == META, f"mask on {out.device}, asked for meta")
        need(out.dtype == torch.bool, f"dtype {out.dtype}")

    @R.test("causal_mask used with apply_mask")
    def _():
        s = rnd(4, 4)
        close(m.apply_mask(s, m.causal_mask(4)), ref.apply_mask(s, ref.causal_mask(4)))

    mask_cases = {
        "(L_q, L_k) mask": (rnd(2, 3, 4), rnd(3, 4, seed=1) > 0),
        "(B, 1, L_k) mask": (rnd(2, 3, 4), rnd(2, 1, 4, seed=2) > 0),
        "fully masked row": (rnd(3, 4), torch.tensor([[True, False, False, True], [False] * 4, [True] * 4])),
    }
    for name, (s, mk) in mask_cases.items():
        @R.test(f"apply_mask {name}")
        def _(s=s, mk=mk):
            close(m.apply_mask(s, mk), ref.apply_mask(s, mk))

    for dt in (F32, F16, BF16):
        @R.test(f"apply_mask dtype {dt}")
        def _(dt=dt):
            s, mk = rnd(3, 4).to(dt), rnd(3, 4, seed=1) > 0
            close(m.apply_mask(s, mk), ref.apply_mask(s, mk), dt)

    @R.test("apply_mask new tensor, scores unchanged")
    def _():
        s, mk = rnd(3, 4), rnd(3, 4, seed=1) > 0
        sn = snapshot(s, mk)
        out = m.apply_mask(s, mk)
        unchanged(sn)
        need(out.data_ptr() != s.data_ptr(), "returned the scores tensor itself")

    @R.test("apply_mask gradients")
    def _():
        mk = rnd(3, 4, seed=1) > 0
        grad_close(lambda s: m.apply_mask(s, mk), lambda s: ref.apply_mask(s, mk), [rnd(3, 4)])

    @R.test("apply_mask device (meta)")
    def _():
        out = m.apply_mask(rnd(3, 4).to(META), (rnd(3, 4) > 0).to(META))
        need(out.device.type == META, "device")

    for name, lengths, L in (("lengths [3,0,5] L=5", [3, 0, 5], 5), ("lengths [1,2] L=4", [1, 2], 4),
                             ("lengths [2] L=2", [2], 2)):
        @R.test(f"padding_mask {name}")
        def _(lengths=lengths, L=L):
            ln = torch.tensor(lengths)
            close(m.padding_mask(ln, L), ref.padding_mask(ln, L))

    @R.test("padding_mask broadcasts over queries of (B, L_q, L) scores")
    def _():
        ln, s = torch.tensor([2, 4]), rnd(2, 3, 4)
        close(m.apply_mask(s, m.padding_mask(ln, 4)), ref.apply_mask(s, ref.padding_mask(ln, 4)))

    @R.test("padding_mask device (meta)")
    def _():
        out = m.padding_mask(torch.tensor([1, 2]).to(META), 3)
        need(out.device.type == META and tuple(out.shape) == (2, 1, 3), f"{out.device} {tuple(out.shape)}")

    @R.test("padding_mask leaves lengths unchanged")
    def _():
        ln = torch.tensor([1, 3])
        sn = snapshot(ln)
        m.padding_mask(ln, 4)
        unchanged(sn)

    smoke = {"causal_mask": runs(lambda: m.causal_mask(3)),
             "apply_mask": runs(lambda: m.apply_mask(rnd(3, 3), ref.causal_mask(3))),
             "padding_mask": runs(lambda: m.padding_mask(torch.tensor([1, 3]), 3))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 5
def ex5(m):
    R = Report()
    NEG = float("-inf")
    x3 = rnd(3, 4, 5, scale=2)
    xm = rnd(4, 5, scale=2)
    xm[0, 1] = NEG
    xm[0, 3] = NEG
    xm[2, :] = NEG
    huge = rnd(3, 6, seed=3) * 1e4

    def sm(x, dim=-1):
        with banned_softmax():
            return m.softmax(x, dim)

    def att(*a, **kw):
        with banned_softmax():
            return m.scaled_dot_product_attention(*a, **kw)

    for dim in (-1, 0, 1, 2):
        @R.test(f"softmax values dim={dim}")
        def _(dim=dim):
            close(sm(x3, dim), ref.softmax(x3, dim))

    @R.test("softmax huge entries (±1e4)")
    def _():
        close(sm(huge), ref.softmax(huge))

    @R.test("softmax with -inf entries and a fully -inf row")
    def _():
        close(sm(xm), ref.softmax(xm))

    @R.test("softmax fully -inf slice along dim=0")
    def _():
        x = rnd(3, 4)
        x[:, 2] = NEG
        close(sm(x, 0), ref.softmax(x, 0))

    @R.test("softmax gradients")
    def _():
        grad_close(sm, ref.softmax, [x3])

    @R.test("softmax gradients with -inf and a fully -inf row (finite, zero there)")
    def _():
        g = grads_of(sm, [xm])[0]
        need(g is not None and bool(torch.isfinite(g).all()), "non-finite gradient")
        need(bool((g[2] == 0).all()), "gradient of the fully masked row is not zero")
        grad_close(sm, ref.softmax, [xm])

    for dt in (F32, F16, BF16):
        @R.test(f"softmax dtype {dt}")
        def _(dt=dt):
            close(sm(xm.to(dt)), ref.softmax(xm.to(dt)), dt)

    @R.test("softmax input unchanged")
    def _():
        x = xm.clone()
        sn = snapshot(x)
        sm(x)
        unchanged(sn)

    @R.test("softmax device (meta)")
    def _():
        need(sm(x3.to(META)).device.type == META, "device")

    q, k, v = rnd(2, 3, 4, 4, seed=1), rnd(2, 3, 6, 4, seed=2), rnd(2, 3, 6, 5, seed=3)
    qs, ks, vs = rnd(2, 5, 8, seed=4), rnd(2, 5, 8, seed=5), rnd(2, 5, 8, seed=6)
    pad = torch.ones(2, 1, 4, 6, dtype=torch.bool)
    pad[0, 0, :, 4:] = False
    pad[1, 0, 2, :] = False  # a fully masked query
    causal = ref.causal_mask(5)

    def cmp_att(args, mask=None, dtype=None):
        go, gw = att(*args, mask=mask) if mask is not None else att(*args)
        eo, ew = ref.sdpa5(*args, mask)
        close(go, eo, dtype, "output")
        close(gw, ew, dtype, "weights")

    @R.test("attention mask=None, L_q=4 != L_k=6, d_v=5 != d_k=4")
    def _():
        cmp_att((q, k, v))

    @R.test("attention mask=None, square L=5")
    def _():
        cmp_att((qs, ks, vs))

    @R.test("attention causal mask")
    def _():
        cmp_att((qs, ks, vs), causal)

    @R.test("attention padding mask with a fully masked query")
    def _():
        cmp_att((q, k, v), pad)

    @R.test("attention gradients (fully masked query included)")
    def _():
        gs = grads_of(lambda a, b, c: att(a, b, c, pad), [q, k, v])
        need(all(g is not None and bool(torch.isfinite(g).all()) for g in gs), "non-finite or missing gradients")
        grad_close(lambda a, b, c: att(a, b, c, pad), lambda a, b, c: ref.sdpa5(a, b, c, pad), [q, k, v])

    @R.test("attention gradients mask=None")
    def _():
        grad_close(lambda a, b, c: att(a, b, c), lambda a, b, c: ref.sdpa5(a, b, c), [q, k, v])

    for dt in (F32, F16, BF16):
        @R.test(f"attention dtype {dt}")
        def _(dt=dt):
            cmp_att((q.to(dt), k.to(dt), v.to(dt)), pad, dt)

    @R.test("attention inputs unchanged")
    def _():
        a, b, c = q.clone(), k.clone(), v.clone()
        sn = snapshot(a, b, c, pad)
        att(a, b, c, pad)
        unchanged(sn)

    @R.test("attention device (meta)")
    def _():
        o, w = att(q.to(META), k.to(META), v.to(META), pad.to(META))
        need(o.device.type == META and w.device.type == META, "device")

    smoke = {"softmax": runs(lambda: sm(rnd(3, 4))),
             "scaled_dot_product_attention": runs(lambda: att(qs, ks, vs), lambda: att(qs, ks, vs, causal))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 6
def _ref_module(cls, *args, seed=0, dtype=F64):
    torch.manual_seed(seed)
    mod = cls(*args).to(dtype)
    with torch.no_grad():
        for p in mod.parameters():
            p.normal_(0, 0.5)
    return mod


def _student_like(cls, refmod, *args, dtype=F64):
    mod = cls(*args).to(dtype)
    mod.load_state_dict(refmod.state_dict(), strict=True)
    return mod


def _module_grads(mod, x, mask=None):
    x = leaf(x)
    out = mod(x) if mask is None else mod(x, mask)
    g = torch.Generator().manual_seed(7)
    (out * torch.randn(out.shape, generator=g, dtype=F64).to(out.dtype)).sum().backward()
    return out, [x.grad] + [p.grad for _, p in sorted(mod.named_parameters())]


def ex6(m):
    R = Report()
    x = rnd(2, 5, 12)
    for H in (1, 3, 4, 12):
        @R.test(f"split_heads H={H}")
        def _(H=H):
            close(m.split_heads(x, H), ref.split_heads(x, H))

    @R.test("split_heads on a slice of a fused projection (non-contiguous)")
    def _():
        big = rnd(2, 5, 36)
        xs = big.split(12, dim=-1)[1]
        close(m.split_heads(xs, 4), ref.split_heads(xs, 4))

    @R.test("split_heads leaves x unchanged")
    def _():
        xx = x.clone()
        sn = snapshot(xx)
        m.split_heads(xx, 3)
        unchanged(sn)

    @R.test("merge_heads on attention-like (non-contiguous) input")
    def _():
        y = rnd(2, 5, 3, 4).transpose(1, 2)
        close(m.merge_heads(y), ref.merge_heads(y))

    @R.test("merge_heads on contiguous input")
    def _():
        y = rnd(2, 3, 5, 4)
        close(m.merge_heads(y), ref.merge_heads(y))

    @R.test("merge_heads(split_heads(x)) == x and input unchanged")
    def _():
        y = ref.split_heads(x, 4)
        sn = snapshot(y)
        close(m.merge_heads(m.split_heads(x, 4)), x)
        m.merge_heads(y)
        unchanged(sn)

    for dt in (F32, F16, BF16):
        @R.test(f"split/merge dtype {dt}")
        def _(dt=dt):
            close(m.split_heads(x.to(dt), 3), ref.split_heads(x.to(dt), 3), dt)
            y = rnd(2, 5, 3, 4).transpose(1, 2).to(dt)
            close(m.merge_heads(y), ref.merge_heads(y), dt)

    @R.test("split/merge gradients")
    def _():
        grad_close(lambda t: m.split_heads(t, 3), lambda t: ref.split_heads(t, 3), [x])
        grad_close(m.merge_heads, ref.merge_heads, [rnd(2, 3, 5, 4)])

    @R.test("MultiHeadAttention submodules")
    def _():
        mod = m.MultiHeadAttention(12, 3)
        names = sorted(n for n, _ in mod.named_children())
        need(names == ["out", "qkv"], f"children {names}")
        need(sorted(mod.state_dict().keys()) == ["out.bias", "out.weight", "qkv.bias", "qkv.weight"],
             f"state dict keys {sorted(mod.state_dict().keys())}")

    def pair(bias=True, H=3, D=12):
        r = _ref_module(ref.MultiHeadAttention, D, H, bias)
        return r, _student_like(m.MultiHeadAttention, r, D, H, bias)

    @R.test("MHA causal (mask=None)")
    def _():
        r, s = pair()
        close(s(x), r(x))

    @R.test("MHA bias=False, H=4")
    def _():
        r, s = pair(False, 4)
        close(s(x), r(x))

    pad = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    pad[1] = False  # sequence 1 is all padding
    pad[0, ..., 3:] = False

    @R.test("MHA padding mask with an all-padding sequence (replaces causal)")
    def _():
        r, s = pair()
        out = s(x, pad)
        need(bool(torch.isfinite(out).all()), "non-finite output")
        close(out, r(x, pad))
        close(out[1], r.out.bias.expand(5, 12), what="all-padding sequence")

    @R.test("MHA full mask (all True) is not causal")
    def _():
        r, s = pair()
        full = torch.ones(5, 5, dtype=torch.bool)
        close(s(x, full), r(x, full))

    @R.test("MHA gradients (causal and padded)")
    def _():
        r, s = pair()
        for mk in (None, pad):
            o1, g1 = _module_grads(s, x, mk)
            o2, g2 = _module_grads(r, x, mk)
            for a, b in zip(g1, g2):
                close(a, b, what="grad")

    for dt in (F32, BF16):
        @R.test(f"MHA dtype {dt}")
        def _(dt=dt):
            r, s = pair()
            r, s = r.to(dt), s.to(dt)
            close(s(x.to(dt)), r(x.to(dt)), dt)

    @R.test("MHA device (meta)")
    def _():
        r, s = pair()
        out = s.to(META)(x.to(META))
        need(out.device.type == META, "device")

    @R.test("MHA input unchanged")
    def _():
        r, s = pair()
        xx = x.clone()
        sn = snapshot(xx)
        s(xx)
        s(xx, pad)
        unchanged(sn)

    smoke = {"split_heads": runs(lambda: m.split_heads(x, 3)),
             "merge_heads": runs(lambda: m.merge_heads(rnd(2, 3, 5, 4)), lambda: m.merge_heads(rnd(2, 1, 5, 4))),
             "MultiHeadAttention": runs(lambda: m.MultiHeadAttention(12, 3).double()(x),
                                        lambda: m.MultiHeadAttention(12, 1).double()(x))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 7
def ex7(m):
    R = Report()
    for hkv, n in ((2, 3), (1, 4), (3, 1)):
        @R.test(f"repeat_kv H_kv={hkv} n_rep={n}")
        def _(hkv=hkv, n=n):
            x = rnd(2, hkv, 5, 4)
            close(m.repeat_kv(x, n), ref.repeat_kv(x, n))

    @R.test("repeat_kv input unchanged, dtype, grads")
    def _():
        x = rnd(2, 2, 5, 4)
        sn = snapshot(x)
        m.repeat_kv(x, 3)
        unchanged(sn)
        for dt in (F32, F16, BF16):
            close(m.repeat_kv(x.to(dt), 2), ref.repeat_kv(x.to(dt), 2), dt)
        grad_close(lambda t: m.repeat_kv(t, 3), lambda t: ref.repeat_kv(t, 3), [x])

    @R.test("repeat_kv device (meta)")
    def _():
        need(m.repeat_kv(rnd(2, 2, 5, 4).to(META), 2).device.type == META, "device")

    @R.test("GroupedQueryAttention layers")
    def _():
        mod = m.GroupedQueryAttention(16, 4, 2)
        got = {k: tuple(v.shape) for k, v in mod.state_dict().items()}
        exp = {k: tuple(v.shape) for k, v in ref.GroupedQueryAttention(16, 4, 2).state_dict().items()}
        need(got == exp, f"state dict {got}, expected {exp}")

    x = rnd(2, 5, 16)

    def pair(H=4, Hkv=2, D=16):
        r = _ref_module(ref.GroupedQueryAttention, D, H, Hkv)
        return r, _student_like(m.GroupedQueryAttention, r, D, H, Hkv)

    for H, Hkv in ((4, 2), (4, 1), (4, 4), (8, 2)):
        @R.test(f"GQA causal H={H} H_kv={Hkv}")
        def _(H=H, Hkv=Hkv):
            r, s = pair(H, Hkv)
            close(s(x), r(x))

    pad = torch.ones(2, 1, 1, 5, dtype=torch.bool)
    pad[1] = False
    pad[0, ..., 2:] = False

    @R.test("GQA padding mask with an all-padding sequence")
    def _():
        r, s = pair()
        out = s(x, pad)
        need(bool(torch.isfinite(out).all()), "non-finite output")
        close(out, r(x, pad))

    @R.test("GQA gradients (causal and padded)")
    def _():
        r, s = pair()
        for mk in (None, pad):
            o1, g1 = _module_grads(s, x, mk)
            o2, g2 = _module_grads(r, x, mk)
            for a, b in zip(g1, g2):
                close(a, b, what="grad")

    for dt in (F32, BF16):
        @R.test(f"GQA dtype {dt}")
        def _(dt=dt):
            r, s = pair()
            r, s = r.to(dt), s.to(dt)
            close(s(x.to(dt)), r(x.to(dt)), dt)

    @R.test("GQA device (meta)")
    def _():
        r, s = pair()
        need(s.to(META)(x.to(META)).device.type == META, "device")

    smoke = {"repeat_kv": runs(lambda: m.repeat_kv(rnd(2, 2, 5, 4), 2)),
             "GroupedQueryAttention": runs(lambda: m.GroupedQueryAttention(16, 4, 2).double()(x),
                                           lambda: m.GroupedQueryAttention(16, 4, 4).double()(x))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 8
def ex8(m):
    R = Report()

    @R.test("kv_cache_bytes Llama-2 7B == 2 GiB (int)")
    def _():
        got = m.kv_cache_bytes(32, 32, 128, 4096)
        need(type(got) is int, f"type {type(got).__name__}")
        need(got == 2 ** 31, f"got {got}")

    @R.test("kv_cache_bytes batch and bytes_per_value")
    def _():
        for args, kw in (((80, 8, 128, 4096), dict(batch_size=3, bytes_per_value=4)), ((1, 1, 1, 1), {}),
                         ((2, 3, 5, 7), dict(batch_size=11))):
            got = m.kv_cache_bytes(*args, **kw)
            need(got == ref.kv_cache_bytes(*args, **kw), f"{args} {kw}: got {got}")

    def kv(T, seed=0, dtype=F64):
        return rnd(2, 2, T, 4, seed=seed, dtype=dtype), rnd(2, 2, T, 4, seed=seed + 100, dtype=dtype)

    @R.test("KVCache appends and returns everything cached")
    def _():
        c = m.KVCache(2, 2, 4, 10, dtype=F64)
        need(len(c) == 0, "new cache not empty")
        k1, v1 = kv(3)
        K, V = c.update(k1, v1)
        close(K, k1)
        close(V, v1)
        k2, v2 = kv(2, 1)
        K, V = c.update(k2, v2)
        need(len(c) == 5, f"len {len(c)}")
        close(K, torch.cat([k1, k2], 2))
        close(V, torch.cat([v1, v2], 2))

    @R.test("KVCache returns views of one storage (no copies, no reallocation)")
    def _():
        c = m.KVCache(2, 2, 4, 10, dtype=F64)
        K1, V1 = c.update(*kv(3))
        K2, V2 = c.update(*kv(2, 1))
        c.reset()
        K3, V3 = c.update(*kv(1, 2))
        pk = {t.untyped_storage().data_ptr() for t in (K1, K2, K3)}
        pv = {t.untyped_storage().data_ptr() for t in (V1, V2, V3)}
        need(len(pk) == 1 and len(pv) == 1, "returned keys/values are not views of one fixed storage")
        need(K1.untyped_storage().nbytes() >= 2 * 2 * 10 * 4 * 8, "storage smaller than max_len")

    @R.test("KVCache reset forgets tokens")
    def _():
        c = m.KVCache(2, 2, 4, 10, dtype=F64)
        c.update(*kv(4))
        c.reset()
        need(len(c) == 0, f"len after reset {len(c)}")
        k, v = kv(2, 3)
        K, V = c.update(k, v)
        close(K, k)
        close(V, v)

    @R.test("KVCache counts a token whose keys are zero")
    def _():
        c = m.KVCache(2, 2, 4, 10, dtype=F64)
        z = torch.zeros(2, 2, 1, 4, dtype=F64)
        c.update(z, z)
        need(len(c) == 1, f"len {len(c)} after one zero token")
        k, v = kv(2)
        K, V = c.update(k, v)
        need(len(c) == 3, f"len {len(c)}")
        close(K, torch.cat([z, k], 2))

    @R.test("KVCache overflow raises ValueError and changes nothing")
    def _():
        c = m.KVCache(2, 2, 4, 5, dtype=F64)
        k1, v1 = kv(3)
        c.update(k1, v1)
        try:
            c.update(*kv(3, 1))
        except ValueError:
            pass
        else:
            raise Fail("no ValueError when appending past max_len")
        need(len(c) == 3, f"len {len(c)} after a refused update")
        k2, v2 = kv(2, 2)
        K, V = c.update(k2, v2)  # fills exactly to max_len
        close(K, torch.cat([k1, k2], 2))
        close(V, torch.cat([v1, v2], 2))

    for dt in (F32, F16, BF16):
        @R.test(f"KVCache dtype {dt}")
        def _(dt=dt):
            c = m.KVCache(2, 2, 4, 6, dtype=dt)
            k, v = kv(3, dtype=dt)
            K, V = c.update(k, v)
            close(K, k, dt)
            close(V, v, dt)

    @R.test("KVCache dtype float64 keeps precision")
    def _():
        c = m.KVCache(2, 2, 4, 6, dtype=F64)
        k = rnd(2, 2, 3, 4) + 1e-12
        K, _ = c.update(k, k)
        need(K.dtype == F64 and torch.equal(K, k), "float64 values not stored exactly")

    @R.test("KVCache device (meta)")
    def _():
        c = m.KVCache(2, 2, 4, 6, dtype=F32, device=META)
        k = torch.empty(2, 2, 3, 4, device=META)
        K, V = c.update(k, k)
        need(K.device.type == META and len(c) == 3, "device")

    @R.test("KVCache.update keeps autograd's record")
    def _():
        c = m.KVCache(2, 2, 4, 6, dtype=F64)
        k, v = leaf(rnd(2, 2, 3, 4)), leaf(rnd(2, 2, 3, 4, seed=1))
        K, V = c.update(k, v)
        (K.sum() + 2 * V.sum()).backward()
        need(k.grad is not None and v.grad is not None, "no gradient reaches k, v")
        close(k.grad, torch.ones_like(k))
        close(v.grad, 2 * torch.ones_like(v))

    x = rnd(2, 9, 16)

    def pair(H=4, Hkv=2, D=16, dtype=F64):
        r = _ref_module(ref.GroupedQueryAttention, D, H, Hkv, dtype=dtype)
        return r, _student_like(m.CachedGroupedQueryAttention, r, D, H, Hkv, dtype=dtype)

    @R.test("cached attention, cache=None == causal GQA")
    def _():
        r, s = pair()
        close(s(x), r(x))

    for chunks in ((3, 1, 5), (1,) * 9, (9,), (4, 5)):
        @R.test(f"cached attention in chunks {chunks} == whole sequence")
        def _(chunks=chunks):
            r, s = pair()
            c = m.KVCache(2, 2, 4, 12, dtype=F64)
            outs, i = [], 0
            for n in chunks:
                outs.append(s(x[:, i:i + n], c))
                i += n
            need(len(c) == 9, f"len(cache) {len(c)}")
            close(torch.cat(outs, 1), r(x))

    @R.test("cached attention gradients (cache=None and an empty cache)")
    def _():
        r, s = pair()
        o2, g2 = _module_grads(r, x)
        o1, g1 = _module_grads(s, x)
        for a, b in zip(g1, g2):
            close(a, b, what="grad (cache=None)")
        s.zero_grad()
        c = m.KVCache(2, 2, 4, 12, dtype=F64)
        xl = leaf(x)
        out = s(xl, c)
        gg = torch.Generator().manual_seed(7)
        (out * torch.randn(out.shape, generator=gg, dtype=F64)).sum().backward()
        g3 = [xl.grad] + [p.grad for _, p in sorted(s.named_parameters())]
        for a, b in zip(g3, g2):
            close(a, b, what="grad (empty cache)")

    @R.test("cached attention float32 module and cache")
    def _():
        r, s = pair(dtype=F32)
        c = m.KVCache(2, 2, 4, 12, dtype=F32)
        xs = x.float()
        out = torch.cat([s(xs[:, :4], c), s(xs[:, 4:], c)], 1)
        close(out, r(xs), F32)

    @R.test("cached attention device (meta)")
    def _():
        r, s = pair(dtype=F32)
        s = s.to(META)
        c = m.KVCache(2, 2, 4, 12, dtype=F32, device=META)
        out = s(torch.empty(2, 3, 16, device=META), c)
        need(out.device.type == META, "device")

    smoke = {"kv_cache_bytes": runs(lambda: m.kv_cache_bytes(1, 1, 1, 1)),
             "KVCache": runs(lambda: (m.KVCache(1, 1, 2, 4).update(torch.ones(1, 1, 2, 2), torch.ones(1, 1, 2, 2)),)),
             "CachedGroupedQueryAttention": runs(
                 lambda: m.CachedGroupedQueryAttention(16, 4, 2).double()(x),
                 lambda: m.CachedGroupedQueryAttention(16, 4, 2).double()(x, m.KVCache(2, 2, 4, 12, dtype=F64)))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 9
def _rand_pattern(B, H, L, seed=0, dtype=F64):
    s = rnd(B, H, L, L, seed=seed, scale=2).masked_fill(~ref.causal_mask(L), float("-inf"))
    return torch.softmax(s, -1).to(dtype)


def _prev_head(L):
    p = torch.zeros(L, L, dtype=F64)
    p[0, 0] = 1
    for i in range(1, L):
        p[i, i - 1] = 1
    return p


def _ind_head(L):
    n = L // 2
    p = torch.zeros(L, L, dtype=F64)
    for i in range(L):
        p[i, 0 if i < n else i - n + 1] = 1
    return p


def _uniform_head(L):
    return ref.causal_mask(L).double() / torch.arange(1, L + 1, dtype=F64)[:, None]


def ex9(m):
    R = Report()

    @R.test("repeated_tokens shape, dtype, halves, range")
    def _():
        t = m.repeated_tokens(3, 5, 7, torch.Generator().manual_seed(1))
        need(tuple(t.shape) == (3, 10), f"shape {tuple(t.shape)}")
        need(t.dtype == torch.long and t.device.type == "cpu", f"{t.dtype} {t.device}")
        need(torch.equal(t[:, :5], t[:, 5:]), "second half is not the first repeated")
        need(int(t.min()) >= 0 and int(t.max()) <= 6, "tokens out of range")

    @R.test("repeated_tokens uses the generator (same seed, same tokens)")
    def _():
        a = m.repeated_tokens(2, 6, 50, torch.Generator().manual_seed(3))
        torch.manual_seed(999)
        b = m.repeated_tokens(2, 6, 50, torch.Generator().manual_seed(3))
        need(torch.equal(a, b), "same seeded generator gave different tokens")
        need(torch.equal(a, ref.repeated_tokens(2, 6, 50, torch.Generator().manual_seed(3))),
             "tokens differ from torch.randint(vocab_size, (batch, seq_len), generator=generator)")

    @R.test("repeated_tokens draws every token of a small vocabulary, generator=None works")
    def _():
        t = m.repeated_tokens(4, 50, 3)
        need(set(t.unique().tolist()) == {0, 1, 2}, f"tokens {t.unique().tolist()}")
        need(tuple(m.repeated_tokens(1, 1, 1).shape) == (1, 2), "batch=1, seq_len=1")

    pats = {"B=2 H=3 L=6": _rand_pattern(2, 3, 6), "B=1 H=2 L=2": _rand_pattern(1, 2, 2, seed=1),
            "B=3 H=4 L=8": _rand_pattern(3, 4, 8, seed=2)}
    for name, p in pats.items():
        @R.test(f"previous_token_score {name}")
        def _(p=p):
            close(m.previous_token_score(p), ref.previous_token_score(p))

        @R.test(f"induction_score {name}")
        def _(p=p):
            n = p.size(-1) // 2
            close(m.induction_score(p, n), ref.induction_score(p, n))

    @R.test("scores of ideal heads are 1")
    def _():
        p = torch.stack([_prev_head(8), _ind_head(8)])[None]
        close(m.previous_token_score(p)[0], torch.tensor(1.0, dtype=F64))
        close(m.induction_score(p, 4)[1], torch.tensor(1.0, dtype=F64))

    for dt in (F32, BF16):
        @R.test(f"scores dtype {dt}")
        def _(dt=dt):
            p = _rand_pattern(2, 3, 6, dtype=dt)
            close(m.previous_token_score(p), ref.previous_token_score(p), dt)
            close(m.induction_score(p, 3), ref.induction_score(p, 3), dt)

    @R.test("scores device (meta), pattern unchanged")
    def _():
        p = _rand_pattern(2, 3, 6)
        sn = snapshot(p)
        m.previous_token_score(p)
        m.induction_score(p, 3)
        unchanged(sn)
        pm = p.to(META)
        need(m.previous_token_score(pm).device.type == META, "device")
        need(m.induction_score(pm, 3).device.type == META, "device")

    def raises(fn, *a):
        try:
            fn(*a)
        except ValueError:
            return True
        except Exception as e:  # noqa
            raise Fail(f"raised {type(e).__name__}, expected ValueError")
        return False

    @R.test("previous_token_score ValueErrors")
    def _():
        need(raises(m.previous_token_score, rnd(3, 4, 4)), "3-D pattern accepted")
        need(raises(m.previous_token_score, rnd(1, 2, 4, 5)), "non-square pattern accepted")
        need(raises(m.previous_token_score, rnd(1, 2, 1, 1)), "L = 1 accepted")

    @R.test("induction_score ValueErrors")
    def _():
        need(raises(m.induction_score, rnd(3, 4, 4), 2), "3-D pattern accepted")
        need(raises(m.induction_score, rnd(1, 2, 4, 6), 2), "non-square pattern accepted")
        need(raises(m.induction_score, _rand_pattern(1, 2, 6), 2), "L=6 with seq_len=2 accepted")
        need(raises(m.induction_score, _rand_pattern(1, 2, 6), 4), "L=6 with seq_len=4 accepted")

    L = 8
    layer0 = torch.stack([_prev_head(L), _uniform_head(L), 0.5 * _prev_head(L) + 0.5 * torch.eye(L, dtype=F64)])[None]
    layer0[0, 2, 0] = torch.eye(L, dtype=F64)[0]
    layer1 = torch.stack([_uniform_head(L), _ind_head(L), _ind_head(L)])[None].repeat(2, 1, 1, 1)

    @R.test("find_heads on synthetic layers")
    def _():
        got = m.find_heads([layer0, layer1])
        need(got == {"previous_token": [(0, 0), (0, 2)], "induction": [(1, 1), (1, 2)]}, f"got {got}")
        for lst in got.values():
            for pair in lst:
                need(type(pair) is tuple and all(type(i) is int for i in pair), f"{pair!r} is not an (int, int) tuple")

    @R.test("find_heads threshold is strict (score == threshold does not count)")
    def _():
        got = m.find_heads((layer0,), threshold=0.5)
        need(got["previous_token"] == [(0, 0)], f"got {got}")
        got = m.find_heads((layer0,), threshold=0.49)
        need(got["previous_token"] == [(0, 0), (0, 2)], f"got {got}")

    @R.test("find_heads empty lists and odd L")
    def _():
        got = m.find_heads([layer0[:, 1:2]])
        need(got == {"previous_token": [], "induction": []}, f"got {got}")
        need(raises(m.find_heads, [_rand_pattern(1, 2, 7)]), "odd L accepted")

    smoke = {"repeated_tokens": runs(lambda: m.repeated_tokens(2, 3, 5)),
             "previous_token_score": runs(lambda: m.previous_token_score(_rand_pattern(2, 3, 6))),
             "induction_score": runs(lambda: m.induction_score(_rand_pattern(2, 3, 6), 3)),
             "find_heads": runs(lambda: m.find_heads([layer0, layer1]))}
    return R, smoke


# ----------------------------------------------------------------------------------- exercise 10
class _MaxNumel:
    """Records the largest tensor produced by any op while active."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch.utils._pytree import tree_flatten
        rec = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for t in tree_flatten(out)[0]:
                    if isinstance(t, torch.Tensor):
                        if t.numel() > rec.max:
                            rec.max, rec.shape = t.numel(), tuple(t.shape)
                return out
        self.max, self.shape, self.mode = 0, None, Mode()


def ex10(m):
    R = Report()

    @R.test("attention_cost")
    def _():
        for L, d in ((1024, 768), (1, 1), (7, 3)):
            got = m.attention_cost(L, d)
            exp = ref.attention_cost(L, d)
            need(got == exp, f"L={L} d={d}: got {got}")
            need(all(type(v) is int for v in got.values()), f"values not ints: {got}")

    @R.test("crossover_length is an int 6·d")
    def _():
        for d in (768, 4096, 1, 10):
            got = m.crossover_length(d)
            need(type(got) is int, f"crossover_length({d}) is {type(got).__name__} {got!r}")
            need(got == 6 * d, f"crossover_length({d}) = {got}")

    def osm(x, b):
        with banned_softmax():
            return m.online_softmax(x, b)

    def tiled(*a, **kw):
        with banned_softmax():
            return m.tiled_attention(*a, **kw)

    x = rnd(3, 4, 10, scale=3)
    xr = torch.sort(rnd(4, 10, seed=2, scale=5), dim=-1).values  # max rises block after block
    for b in (1, 3, 4, 10, 16):
        @R.test(f"online_softmax block_size={b}")
        def _(b=b):
            close(osm(x, b), ref.softmax(x))
            close(osm(xr, b), ref.softmax(xr), what="rising max")

    @R.test("online_softmax huge entries and -inf rows")
    def _():
        h = torch.sort(rnd(3, 8, seed=3) * 1e4, dim=-1).values
        close(osm(h, 3), ref.softmax(h))
        xm = rnd(3, 7, seed=4)
        xm[0, 2:5] = float("-inf")
        xm[1] = float("-inf")
        close(osm(xm, 2), ref.softmax(xm))

    for dt in (F32, F16, BF16):
        @R.test(f"online_softmax dtype {dt}")
        def _(dt=dt):
            close(osm(xr.to(dt), 3), ref.softmax(xr.to(dt)), dt)

    @R.test("online_softmax input unchanged, device (meta)")
    def _():
        xx = xr.clone()
        sn = snapshot(xx)
        osm(xx, 3)
        unchanged(sn)
        need(osm(xr.to(META), 3).device.type == META, "device")

    q, k, v = rnd(2, 2, 5, 4, seed=1), rnd(2, 2, 7, 4, seed=2), rnd(2, 2, 7, 3, seed=3)
    q6, k6, v6 = rnd(2, 6, 4, seed=4, scale=2), rnd(2, 6, 4, seed=5, scale=2), rnd(2, 6, 4, seed=6)
    qb, kb, vb = rnd(2, 7, 4, seed=7), rnd(2, 4, 4, seed=8), rnd(2, 4, 4, seed=9)
    for b in (1, 2, 3, 7, 10):
        @R.test(f"tiled non-causal L_q=5 L_k=7 block={b}")
        def _(b=b):
            close(tiled(q, k, v, b), ref.full_attention(q, k, v))

    for b in (1, 4, 6):
        @R.test(f"tiled causal L=6 block={b}")
        def _(b=b):
            close(tiled(q6, k6, v6, b, causal=True), ref.full_attention(q6, k6, v6, True))

    @R.test("tiled causal L_q=5 < L_k=7 (queries are the last positions)")
    def _():
        close(tiled(q, k, v, 3, causal=True), ref.full_attention(q, k, v, True))

    @R.test("tiled causal L_q=7 > L_k=4 (first queries see nothing: zeros)")
    def _():
        out = tiled(qb, kb, vb, 2, causal=True)
        close(out, ref.full_attention(qb, kb, vb, True))

    @R.test("tiled 2-D inputs")
    def _():
        close(tiled(q6[0], k6[0], v6[0], 4, causal=True), ref.full_attention(q6[0], k6[0], v6[0], True))

    def gcheck(args, b, causal):
        gs = grads_of(lambda a, c, d: tiled(a, c, d, b, causal=causal), list(args))
        need(all(g is not None and bool(torch.isfinite(g).all()) for g in gs), "missing or non-finite gradients")
        grad_close(lambda a, c, d: tiled(a, c, d, b, causal=causal),
                   lambda a, c, d: ref.full_attention(a, c, d, causal), list(args))

    @R.test("tiled gradients non-causal")
    def _():
        gcheck((q, k, v), 3, False)

    @R.test("tiled gradients causal")
    def _():
        gcheck((q6, k6, v6), 4, True)

    @R.test("tiled gradients causal, queries that see no key (finite)")
    def _():
        gcheck((qb, kb, vb), 2, True)

    for dt in (F32, F16, BF16):
        @R.test(f"tiled dtype {dt}")
        def _(dt=dt):
            a, c, d = (t.to(dt) for t in (q6, k6, v6))
            close(tiled(a, c, d, 4, causal=True), ref.full_attention(a, c, d, True), dt)

    @R.test("tiled never builds an (L_q, L_k) tensor")
    def _():
        Lq = 256
        a, c, d = rnd(1, Lq, 4, seed=1), rnd(1, Lq, 4, seed=2), rnd(1, Lq, 4, seed=3)
        for causal in (False, True):
            rec = _MaxNumel()
            with rec.mode:
                tiled(a, c, d, 16, causal=causal)
            need(rec.max < Lq * Lq // 4, f"causal={causal}: a tensor of shape {rec.shape} ({rec.max} elements)")

    @R.test("tiled inputs unchanged, device (meta)")
    def _():
        a, c, d = q6.clone(), k6.clone(), v6.clone()
        sn = snapshot(a, c, d)
        tiled(a, c, d, 4, causal=True)
        unchanged(sn)
        out = tiled(q6.to(META), k6.to(META), v6.to(META), 4, causal=True)
        need(out.device.type == META, "device")

    smoke = {"attention_cost": runs(lambda: m.attention_cost(8, 4)),
             "crossover_length": runs(lambda: m.crossover_length(8)),
             "online_softmax": runs(lambda: osm(x, 3)),
             "tiled_attention": runs(lambda: tiled(q6, k6, v6, 4), lambda: tiled(q6, k6, v6, 4, causal=True))}
    return R, smoke
