"""Check the round-7 corpus: every honest file passes every check, every wrong file fails one.

    /work/main/.venv/bin/python check/check_corpus.py            # all files
    /work/main/.venv/bin/python check/check_corpus.py 5 7        # exercises 5 and 7 only
    /work/main/.venv/bin/python check/check_corpus.py -v FILE..  # list every failed check

For each file: the header (format, regexes: each ideal matches its own expect lines and no reject
line), the structure (the stub's lines all kept, in order, no NotImplementedError left), then the
behaviour against the float64 reference in ref.py: values on several sizes (L_q != L_k, d_k not a
perfect square, H != H_kv != 1, B != H, L = 1, batched and unbatched), gradients, dtypes
(float32/float64 and float16/bfloat16 on the CPU), inputs left unchanged, the device kept (the
`meta` device stands in for a GPU: a tensor made without device= cannot meet it), documented
boundaries and ValueErrors, the exercise's rules (no torch softmax in exercises 5 and 10, no
(L_q, L_k) tensor in tiled_attention, storage allocated once in the KV cache).
"""

import sys

sys.dont_write_bytecode = True

import argparse
import contextlib
import importlib.util
import math
import re
import sys
import time
import traceback
import warnings
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ref  # noqa: E402

torch.set_num_threads(1)
warnings.filterwarnings("ignore")

ROOT = Path(__file__).resolve().parent.parent
STUBS = Path("/work/corpus7/given/stubs")
F64, F32, F16, BF16 = torch.float64, torch.float32, torch.float16, torch.bfloat16
META = torch.device("meta")
NEG = float("-inf")


# --------------------------------------------------------------------------------------- helpers
class Fail(Exception):
    pass


def ensure(cond, msg):
    if not cond:
        raise Fail(msg)


_gen = torch.Generator().manual_seed(1234)


def rnd(*shape, dtype=F64, scale=1.0):
    return (torch.randn(*shape, generator=_gen, dtype=F64) * scale).to(dtype)


def close(got, exp, name, atol=1e-9, rtol=1e-7):
    ensure(isinstance(got, torch.Tensor), f"{name}: not a tensor ({type(got).__name__})")
    ensure(tuple(got.shape) == tuple(exp.shape), f"{name}: shape {tuple(got.shape)}, expected {tuple(exp.shape)}")
    ensure(got.device.type == "cpu", f"{name}: on {got.device}")
    g, e = got.detach().to(F64), exp.detach().to(F64)
    for f, what in ((torch.isnan, "NaN"), (torch.isposinf, "+inf"), (torch.isneginf, "-inf")):
        ensure(torch.equal(f(g), f(e)), f"{name}: {what} where not expected (or missing)")
    fin = torch.isfinite(e)
    if fin.any():
        diff = (g[fin] - e[fin]).abs()
        ok = diff <= atol + rtol * e[fin].abs()
        ensure(bool(ok.all()), f"{name}: max abs error {diff.max().item():.3g}")


def tol(dtype):
    return {F64: (1e-9, 1e-7), F32: (2e-5, 2e-4), F16: (3e-2, 3e-2), BF16: (1.5e-1, 6e-2)}[dtype]


class Snap:
    """Remember inputs, then check they were not changed (values, shape, in-place version)."""

    def __init__(self, *ts):
        self.items = []
        for t in ts:
            if isinstance(t, torch.Tensor):
                c = None if t.device.type == "meta" else t.detach().clone()
                self.items.append((t, c, tuple(t.shape), t._version))

    def check(self, name):
        for t, c, shape, ver in self.items:
            ensure(tuple(t.shape) == shape, f"{name}: an input's shape changed {shape} -> {tuple(t.shape)}")
            ensure(t._version == ver, f"{name}: an input was modified in place")
            if c is not None:
                ensure(torch.equal(t.detach(), c), f"{name}: an input's values changed")


def as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def grad_check(name, f_student, f_ref, inputs, grad_mask=None, pick=None):
    """Compare d(sum(w * outputs))/d(inputs) between the student and the reference (float64)."""
    grad_mask = grad_mask or [True] * len(inputs)
    pick = pick or (lambda out: as_tuple(out))
    a = [t.detach().clone().requires_grad_(g) if torch.is_floating_point(t) else t for t, g in zip(inputs, grad_mask)]
    b = [t.detach().clone().requires_grad_(g) if torch.is_floating_point(t) else t for t, g in zip(inputs, grad_mask)]
    out_r = pick(f_ref(*b))
    ws = [rnd(*o.shape) for o in out_r]
    loss_r = sum((torch.where(torch.isfinite(o), o, torch.zeros_like(o)) * w).sum() for o, w in zip(out_r, ws))
    out_s = pick(f_student(*a))
    ensure(len(out_s) == len(out_r), f"{name}: {len(out_s)} outputs")
    for o, e in zip(out_s, out_r):
        ensure(isinstance(o, torch.Tensor) and o.shape == e.shape, f"{name}: output shape")
    loss_s = sum((torch.where(torch.isfinite(e), o, torch.zeros_like(o)) * w).sum() for o, e, w in zip(out_s, out_r, ws))
    req_a = [t for t, g in zip(a, grad_mask) if g]
    req_b = [t for t, g in zip(b, grad_mask) if g]
    gr = torch.autograd.grad(loss_r, req_b, allow_unused=True)
    ensure(loss_s.requires_grad, f"{name}: output is not connected to the inputs (no gradient)")
    gs = torch.autograd.grad(loss_s, req_a, allow_unused=True)
    for i, (x, y) in enumerate(zip(gs, gr)):
        y = torch.zeros_like(req_b[i]) if y is None else y
        x = torch.zeros_like(req_a[i]) if x is None else x
        ensure(bool(torch.isfinite(x).all()), f"{name}: non-finite gradient for input {i}")
        close(x, y, f"{name}: gradient of input {i}", atol=1e-8, rtol=1e-6)


def module_grad_check(name, s_mod, r_mod, run_s, run_r, x):
    xa = x.detach().clone().requires_grad_()
    xb = x.detach().clone().requires_grad_()
    yr = run_r(r_mod, xb)
    w = rnd(*yr.shape)
    (yr * w).sum().backward()
    ys = run_s(s_mod, xa)
    ensure(ys.shape == yr.shape, f"{name}: output shape {tuple(ys.shape)}")
    ensure(ys.requires_grad, f"{name}: output has no gradient")
    (ys * w).sum().backward()
    close(xa.grad if xa.grad is not None else torch.zeros_like(xa), xb.grad, f"{name}: gradient of x", 1e-8, 1e-6)
    rp = dict(r_mod.named_parameters())
    for n, p in s_mod.named_parameters():
        g = p.grad if p.grad is not None else torch.zeros_like(p)
        ensure(bool(torch.isfinite(g).all()), f"{name}: non-finite gradient of {n}")
        close(g, rp[n].grad, f"{name}: gradient of {n}", 1e-8, 1e-6)


def meta(t):
    return t.detach().to(META)


def expect_meta(out, name):
    for t in as_tuple(out):
        ensure(isinstance(t, torch.Tensor), f"{name}: not a tensor")
        ensure(t.device.type == "meta", f"{name}: output on {t.device}, not on the inputs' device")


def expect_dtype(out, dtype, name):
    for t in as_tuple(out):
        ensure(t.dtype == dtype, f"{name}: dtype {t.dtype}, expected {dtype}")


@contextlib.contextmanager
def forbid_softmax():
    """While student code runs in exercises 5 and 10: torch's softmax and fused attention raise."""

    def boom(*a, **k):
        raise Fail("called a torch softmax / fused attention, off limits here")

    targets = [(torch, "softmax"), (torch, "log_softmax"), (F, "softmax"), (F, "log_softmax"),
               (torch.Tensor, "softmax"), (torch.Tensor, "log_softmax"), (torch.special, "softmax"),
               (torch.special, "log_softmax"), (F, "scaled_dot_product_attention"),
               (nn.Softmax, "forward"), (nn.MultiheadAttention, "forward")]
    saved = [(o, n, getattr(o, n)) for o, n in targets]
    try:
        for o, n, _ in saved:
            setattr(o, n, boom)
        yield
    finally:
        for o, n, f in saved:
            setattr(o, n, f)


class MaxNumel(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.max = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.max = max(self.max, t.numel())
        return out


class Collector:
    def __init__(self):
        self.fails = []
        self.count = 0

    def run(self, name, fn):
        self.count += 1
        try:
            fn()
        except Fail as e:
            self.fails.append(f"{name}: {e}")
        except Exception as e:  # noqa: BLE001 - a crash is a failure of the student code
            msg = str(e).strip().splitlines()[0][:160] if str(e).strip() else ""
            self.fails.append(f"{name}: {type(e).__name__}: {msg}")


def raises(exc, fn, name):
    try:
        fn()
    except exc:
        return
    except Exception as e:  # noqa: BLE001
        raise Fail(f"{name}: raised {type(e).__name__} instead of {exc.__name__}")
    raise Fail(f"{name}: did not raise {exc.__name__}")


# ----------------------------------------------------------------------------------- exercise 1
def ex1(m, C):
    # (x shape, d_k, d_v): d_model = x.shape[-1]
    cases = [((5, 6), 4, 3), ((2, 5, 6), 6, 6), ((2, 3, 4, 7), 5, 2), ((1, 5), 3, 3), ((3, 1, 4), 4, 5)]
    for xs, dk, dv in cases:
        dm = xs[-1]
        x, wq, wk, wv = rnd(*xs), rnd(dm, dk), rnd(dm, dk), rnd(dm, dv)

        def values(x=x, wq=wq, wk=wk, wv=wv, xs=xs):
            for dt in (F64, F32):
                args = [t.to(dt) for t in (x, wq, wk, wv)]
                snap = Snap(*args)
                out = m.project(*args)
                snap.check("project")
                exp = ref.project(x, wq, wk, wv)
                ensure(len(out) == 3, "project: not 3 outputs")
                for o, e, n in zip(out, exp, "qkv"):
                    close(o, e, f"project {n} {xs} {dt}", *tol(dt))
                expect_dtype(out, dt, "project")
        C.run(f"project values {xs} dk={dk}", values)
        C.run(f"project grad {xs}", lambda x=x, wq=wq, wk=wk, wv=wv: grad_check(
            "project", m.project, ref.project, [x, wq, wk, wv]))

        d = dk
        w = rnd(dm, 3 * d)

        def fvalues(x=x, w=w, xs=xs):
            for dt in (F64, F32):
                a = [x.to(dt), w.to(dt)]
                snap = Snap(*a)
                out = m.fused_project(*a)
                snap.check("fused_project")
                exp = ref.fused_project(x, w)
                ensure(len(out) == 3, "fused_project: not 3 outputs")
                for o, e, n in zip(out, exp, "qkv"):
                    close(o, e, f"fused_project {n} {xs} {dt}", *tol(dt))
                expect_dtype(out, dt, "fused_project")
        C.run(f"fused_project values {xs} d={d}", fvalues)
        C.run(f"fused_project grad {xs}", lambda x=x, w=w: grad_check(
            "fused_project", m.fused_project, ref.fused_project, [x, w]))

    x, wq, wk, wv, w = rnd(2, 5, 6), rnd(6, 4), rnd(6, 4), rnd(6, 3), rnd(6, 12)
    for dt in (F16, BF16):
        C.run(f"project {dt}", lambda dt=dt: (
            [close(o, e, "project half", *tol(dt)) for o, e in zip(
                m.project(*[t.to(dt) for t in (x, wq, wk, wv)]), ref.project(*[t.to(dt).to(F64) for t in (x, wq, wk, wv)]))],
            expect_dtype(m.project(*[t.to(dt) for t in (x, wq, wk, wv)]), dt, "project")))
        C.run(f"fused_project {dt}", lambda dt=dt: (
            [close(o, e, "fused half", *tol(dt)) for o, e in zip(
                m.fused_project(x.to(dt), w.to(dt)), ref.fused_project(x.to(dt).to(F64), w.to(dt).to(F64)))],
            expect_dtype(m.fused_project(x.to(dt), w.to(dt)), dt, "fused_project")))
    C.run("project meta", lambda: expect_meta(m.project(*[meta(t) for t in (x, wq, wk, wv)]), "project"))
    C.run("fused_project meta", lambda: expect_meta(m.fused_project(meta(x), meta(w)), "fused_project"))
    C.run("fused_project meta f16", lambda: expect_dtype(m.fused_project(meta(x).half(), meta(w).half()), F16, "fused"))

    def noncontig():
        base = rnd(5, 2, 6)
        xn = base.transpose(0, 1)  # (2, 5, 6), not contiguous
        for o, e in zip(m.project(xn, wq, wk, wv), ref.project(xn, wq, wk, wv)):
            close(o, e, "project non-contiguous x")
        for o, e in zip(m.fused_project(xn, w), ref.fused_project(xn, w)):
            close(o, e, "fused_project non-contiguous x")
    C.run("non-contiguous x", noncontig)


# ----------------------------------------------------------------------------------- exercise 2
SCORE_CASES = [((), 5, 6, 7), ((2,), 3, 4, 5), ((2, 3), 1, 6, 7), ((3, 2), 4, 1, 5), ((1,), 1, 1, 3), ((4,), 6, 6, 6)]


def scores_checks(C, fn, reffn, name):
    for lead, lq, lk, d in SCORE_CASES:
        q, k = rnd(*lead, lq, d), rnd(*lead, lk, d)

        def values(q=q, k=k, lead=lead):
            for dt in (F64, F32):
                a = [q.to(dt), k.to(dt)]
                snap = Snap(*a)
                out = fn(*a)
                snap.check(name)
                close(out, reffn(q, k), f"{name} {lead}+({lq},{lk},{d}) {dt}", *tol(dt))
                expect_dtype(out, dt, name)
        C.run(f"{name} values {lead} {lq}x{lk} d={d}", values)
        C.run(f"{name} grad {lead} {lq}x{lk}", lambda q=q, k=k: grad_check(name, fn, reffn, [q, k]))
    q, k = rnd(2, 3, 4, 5), rnd(2, 3, 6, 5)
    for dt in (F16, BF16):
        C.run(f"{name} {dt}", lambda dt=dt: (
            close(fn(q.to(dt), k.to(dt)), reffn(q.to(dt).to(F64), k.to(dt).to(F64)), name, *tol(dt)),
            expect_dtype(fn(q.to(dt), k.to(dt)), dt, name)))
    C.run(f"{name} meta", lambda: expect_meta(fn(meta(q), meta(k)), name))
    C.run(f"{name} meta f16", lambda: expect_dtype(fn(meta(q).half(), meta(k).half()), F16, name))

    def noncontig():
        qn = rnd(2, 4, 3, 5).transpose(1, 2)  # (2, 3, 4, 5)
        kn = rnd(6, 2, 3, 5).permute(1, 2, 0, 3)  # (2, 3, 6, 5)
        close(fn(qn, kn), reffn(qn, kn), f"{name} non-contiguous")
    C.run(f"{name} non-contiguous", noncontig)


def ex2(m, C):
    scores_checks(C, m.attention_scores, ref.attention_scores, "attention_scores")


# ----------------------------------------------------------------------------------- exercise 3
def ex3(m, C):
    for shape, dk in (((2, 3, 4, 5), 6), ((4, 5), 4), ((3, 1, 7), 7), ((2, 2, 3, 3), 64), ((2, 6), 1)):
        s = rnd(*shape, scale=3.0)

        def values(s=s, dk=dk, shape=shape):
            for dt in (F64, F32):
                a = s.to(dt)
                snap = Snap(a)
                out = m.scale_scores(a, dk)
                snap.check("scale_scores")
                ensure(out is not a, "scale_scores: returned its input, not a new tensor")
                close(out, ref.scale_scores(s, dk), f"scale_scores {shape} d_k={dk} {dt}", *tol(dt))
                expect_dtype(out, dt, "scale_scores")
        C.run(f"scale_scores values {shape} d_k={dk}", values)
        C.run(f"scale_scores grad {shape}", lambda s=s, dk=dk: grad_check(
            "scale_scores", lambda x: m.scale_scores(x, dk), lambda x: ref.scale_scores(x, dk), [s]))
    s = rnd(2, 3, 4, 5)
    for dt in (F16, BF16):
        C.run(f"scale_scores {dt}", lambda dt=dt: (
            close(m.scale_scores(s.to(dt), 5), ref.scale_scores(s.to(dt).to(F64), 5), "scale half", *tol(dt)),
            expect_dtype(m.scale_scores(s.to(dt), 5), dt, "scale_scores")))
    C.run("scale_scores meta", lambda: expect_meta(m.scale_scores(meta(s), 5), "scale_scores"))
    C.run("scale_scores meta f16", lambda: expect_dtype(m.scale_scores(meta(s).half(), 5), F16, "scale_scores"))
    scores_checks(C, m.scaled_scores, ref.scaled_scores, "scaled_scores")


# ----------------------------------------------------------------------------------- exercise 4
def ex4(m, C):
    def causal():
        for L in (1, 2, 3, 6):
            out = m.causal_mask(L)
            ensure(isinstance(out, torch.Tensor) and out.dtype == torch.bool, f"causal_mask({L}): not a bool tensor")
            ensure(out.device.type == "cpu", f"causal_mask({L}): on {out.device}")
            ensure(torch.equal(out, ref.causal_mask(L)), f"causal_mask({L}): wrong values\n{out.int()}")
    C.run("causal_mask values", causal)
    C.run("causal_mask device", lambda: (
        expect_meta(m.causal_mask(4, device=META), "causal_mask"),
        ensure(tuple(m.causal_mask(4, META).shape) == (4, 4), "causal_mask: shape")))
    C.run("causal_mask device positional", lambda: expect_meta(m.causal_mask(3, META), "causal_mask"))

    def am_cases():
        s1, m1 = rnd(4, 5), ref.causal_mask(5)[1:]
        s2, m2 = rnd(2, 3, 4, 5), torch.rand(4, 5, generator=_gen) > 0.4
        m2[2] = False  # a fully masked row
        s3, m3 = rnd(2, 4, 5), torch.tensor([[[True, True, False, False, False]], [[False] * 5]])
        s4, m4 = rnd(3, 2, 6), torch.rand(3, 2, 6, generator=_gen) > 0.5
        return [(s1, m1), (s2, m2), (s3, m3), (s4, m4)]
    for i, (s, mk) in enumerate(am_cases()):
        def values(s=s, mk=mk, i=i):
            for dt in (F64, F32, F16, BF16):
                a = s.to(dt)
                snap = Snap(a, mk)
                out = m.apply_mask(a, mk)
                snap.check("apply_mask")
                ensure(out is not a, "apply_mask: returned its input")
                close(out, ref.apply_mask(a.to(F64), mk), f"apply_mask case {i} {dt}", 0, 0)
                expect_dtype(out, dt, "apply_mask")
        C.run(f"apply_mask values case {i}", values)
        C.run(f"apply_mask grad case {i}", lambda s=s, mk=mk: grad_check(
            "apply_mask", m.apply_mask, ref.apply_mask, [s, mk], grad_mask=[True, False]))
    s, mk = rnd(2, 3, 4, 5), ref.causal_mask(5)[1:]
    C.run("apply_mask meta", lambda: expect_meta(m.apply_mask(meta(s), meta(mk)), "apply_mask"))
    C.run("apply_mask meta bf16", lambda: expect_dtype(m.apply_mask(meta(s).bfloat16(), meta(mk)), BF16, "apply_mask"))

    for lengths, L in (([3, 0, 5], 5), ([2, 1], 4), ([0], 1), ([1, 4, 2, 2], 6), ([7], 7)):
        def pvalues(lengths=lengths, L=L):
            lt = torch.tensor(lengths, dtype=torch.long)
            snap = Snap(lt)
            out = m.padding_mask(lt, L)
            snap.check("padding_mask")
            ensure(isinstance(out, torch.Tensor) and out.dtype == torch.bool, "padding_mask: not a bool tensor")
            exp = ref.padding_mask(lt, L)
            ensure(tuple(out.shape) == tuple(exp.shape), f"padding_mask({lengths}, {L}): shape {tuple(out.shape)}, expected {tuple(exp.shape)}")
            ensure(torch.equal(out, exp), f"padding_mask({lengths}, {L}): wrong values")
        C.run(f"padding_mask {lengths} L={L}", pvalues)
    C.run("padding_mask meta", lambda: (
        expect_meta(m.padding_mask(torch.tensor([2, 3], device=META), 4), "padding_mask"),
        ensure(tuple(m.padding_mask(torch.tensor([2, 3], device=META), 4).shape) == (2, 1, 4), "padding_mask: shape")))

    def combined():  # the notebook's use: causal & padding on scores (B, L, L), heads via [:, None]
        lt = torch.tensor([3, 0])
        msk = m.causal_mask(4) & m.padding_mask(lt, 4)
        s = rnd(2, 2, 4, 4)
        out = m.apply_mask(s, msk[:, None])
        close(out, ref.apply_mask(s, (ref.causal_mask(4) & ref.padding_mask(lt, 4))[:, None]), "combined masks", 0, 0)
    C.run("causal & padding through apply_mask", combined)


# ----------------------------------------------------------------------------------- exercise 5
def softmax_inputs():
    a = rnd(3, 4, 5, scale=2.0)
    b = rnd(4, 6, scale=2.0)
    b[1, 2:] = NEG
    b[2] = NEG  # fully masked
    b[3, 0] = NEG
    c = torch.tensor([[1e4, 1e4 - 1.0, 0.0], [-1e4, -1e4 + 1.0, -1e4 + 2.0], [1e4, -1e4, 3.0]], dtype=F64)
    d = torch.full((2, 3), NEG, dtype=F64)
    d[0, 1] = 0.5
    e = rnd(7, scale=3.0)
    return [("3d", a), ("masked", b), ("huge", c), ("mostly -inf", d), ("1d", e)]


def sdpa_cases():
    out = []
    out.append(("unbatched L_q!=L_k", (), 4, 6, 5, 3, None))
    out.append(("batched causal", (2,), 3, 3, 4, 4, ref.causal_mask(3)))
    mk = torch.rand(2, 3, 1, 5, generator=_gen) > 0.3
    mk[1, 2] = False
    out.append(("heads L_q=1", (2, 3), 1, 5, 6, 2, mk))
    pad = torch.tensor([[[True, True, False, False]], [[False, False, False, False]]])  # (B, 1, L_k)
    out.append(("padding, empty sequence", (2,), 3, 4, 3, 5, pad))
    mk2 = torch.rand(3, 2, 4, 4, generator=_gen) > 0.5
    mk2[0, 1, 2] = False
    out.append(("random mask, fully masked row", (3, 2), 4, 4, 7, 3, mk2))
    return out


def ex5(m, C):
    def call(f, *a, **k):
        with forbid_softmax():
            return f(*a, **k)

    for label, x in softmax_inputs():
        dims = [-1, 0] + ([1] if x.dim() >= 2 else [])
        for dim in dims:
            def values(x=x, dim=dim, label=label):
                for dt in (F64, F32):
                    a = x.to(dt)
                    snap = Snap(a)
                    out = call(m.softmax, a, dim=dim)
                    snap.check("softmax")
                    close(out, ref.softmax(x, dim=dim), f"softmax {label} dim={dim} {dt}", *tol(dt))
                    expect_dtype(out, dt, "softmax")
            C.run(f"softmax values {label} dim={dim}", values)
        C.run(f"softmax grad {label}", lambda x=x: grad_check(
            "softmax", lambda t: call(m.softmax, t, dim=-1), lambda t: ref.softmax(t, dim=-1), [x]))
        if x.dim() >= 2:
            C.run(f"softmax grad {label} dim=0", lambda x=x: grad_check(
                "softmax", lambda t: call(m.softmax, t, dim=0), lambda t: ref.softmax(t, dim=0), [x]))
    x = softmax_inputs()[1][1]
    for dt in (F16, BF16):
        C.run(f"softmax {dt}", lambda dt=dt: (
            close(call(m.softmax, x.to(dt)), ref.softmax(x.to(dt).to(F64)), "softmax half", *tol(dt)),
            expect_dtype(call(m.softmax, x.to(dt)), dt, "softmax")))
    C.run("softmax meta", lambda: expect_meta(call(m.softmax, meta(x)), "softmax"))
    C.run("softmax meta f16", lambda: expect_dtype(call(m.softmax, meta(x).half()), F16, "softmax"))

    for label, lead, lq, lk, dk, dv, mk in sdpa_cases():
        q, k, v = rnd(*lead, lq, dk), rnd(*lead, lk, dk), rnd(*lead, lk, dv)

        def values(q=q, k=k, v=v, mk=mk, label=label):
            for dt in (F64, F32):
                a = [q.to(dt), k.to(dt), v.to(dt)]
                snap = Snap(*a, mk)
                out = call(m.scaled_dot_product_attention, *a, mask=mk) if mk is not None else \
                    call(m.scaled_dot_product_attention, *a)
                snap.check("scaled_dot_product_attention")
                exp = ref.scaled_dot_product_attention(q, k, v, mk)
                ensure(isinstance(out, tuple) and len(out) == 2, "sdpa: not (output, weights)")
                close(out[0], exp[0], f"sdpa output {label} {dt}", *tol(dt))
                close(out[1], exp[1], f"sdpa weights {label} {dt}", *tol(dt))
                expect_dtype(out, dt, "sdpa")
        C.run(f"sdpa values {label}", values)
        C.run(f"sdpa grad {label}", lambda q=q, k=k, v=v, mk=mk: grad_check(
            "sdpa", lambda a, b, c: call(m.scaled_dot_product_attention, a, b, c, mk),
            lambda a, b, c: ref.scaled_dot_product_attention(a, b, c, mk), [q, k, v]))
    label, lead, lq, lk, dk, dv, mk = sdpa_cases()[3]
    q, k, v = rnd(*lead, lq, dk), rnd(*lead, lk, dk), rnd(*lead, lk, dv)
    for dt in (F16, BF16):
        def half(dt=dt):
            out = call(m.scaled_dot_product_attention, q.to(dt), k.to(dt), v.to(dt), mk)
            exp = ref.scaled_dot_product_attention(*[t.to(dt).to(F64) for t in (q, k, v)], mk)
            close(out[0], exp[0], "sdpa half output", *tol(dt))
            close(out[1], exp[1], "sdpa half weights", *tol(dt))
            expect_dtype(out, dt, "sdpa")
        C.run(f"sdpa {dt} with an empty sequence", half)
    C.run("sdpa meta", lambda: expect_meta(call(m.scaled_dot_product_attention, meta(q), meta(k), meta(v), meta(mk)), "sdpa"))
    C.run("sdpa meta no mask", lambda: expect_meta(call(m.scaled_dot_product_attention, meta(q), meta(k), meta(v)), "sdpa"))


# ----------------------------------------------------------------------------------- exercise 6
def ex6(m, C):
    for B, L, D, H in ((2, 3, 12, 4), (3, 1, 8, 2), (1, 5, 6, 3), (2, 4, 6, 6), (2, 2, 5, 1)):
        x = rnd(B, L, D)

        def split(x=x, H=H):
            for dt in (F64, F32):
                a = x.to(dt)
                snap = Snap(a)
                out = m.split_heads(a, H)
                snap.check("split_heads")
                close(out, ref.split_heads(a.to(F64), H), f"split_heads {tuple(x.shape)} H={H} {dt}", 0, 0)
                expect_dtype(out, dt, "split_heads")
            qkv = rnd(x.shape[0], x.shape[1], 3 * x.shape[2])
            sl = qkv.split(x.shape[2], dim=-1)[1]  # a slice of a fused projection, as forward passes
            close(m.split_heads(sl, H), ref.split_heads(sl, H), "split_heads on a split() slice", 0, 0)
        C.run(f"split_heads B={B} L={L} D={D} H={H}", split)
        y = rnd(B, H, L, D // H)

        def merge(y=y):
            for dt in (F64, F32):
                a = y.to(dt)
                snap = Snap(a)
                out = m.merge_heads(a)
                snap.check("merge_heads")
                close(out, ref.merge_heads(a.to(F64)), f"merge_heads {tuple(y.shape)} {dt}", 0, 0)
                expect_dtype(out, dt, "merge_heads")
            nc = y.transpose(1, 2).contiguous().transpose(1, 2)  # not contiguous
            snap = Snap(nc)
            close(m.merge_heads(nc), ref.merge_heads(nc), "merge_heads non-contiguous input", 0, 0)
            snap.check("merge_heads")
        C.run(f"merge_heads {tuple(y.shape)}", merge)
        C.run(f"split/merge grad {tuple(x.shape)} H={H}", lambda x=x, H=H: grad_check(
            "split_heads", lambda t: m.split_heads(t, H), lambda t: ref.split_heads(t, H), [x]))
        C.run(f"merge grad {tuple(y.shape)}", lambda y=y: grad_check(
            "merge_heads", m.merge_heads, ref.merge_heads, [y]))
    x, y = rnd(2, 3, 12), rnd(2, 4, 3, 3)
    C.run("split/merge meta", lambda: (expect_meta(m.split_heads(meta(x), 4), "split_heads"),
                                       expect_meta(m.merge_heads(meta(y)), "merge_heads")))
    C.run("split/merge f16", lambda: (expect_dtype(m.split_heads(x.half(), 4), F16, "split_heads"),
                                      expect_dtype(m.merge_heads(y.half()), F16, "merge_heads")))

    def build(d_model, H, bias, dtype=F64):
        torch.manual_seed(7)
        r = ref.RefMHA(d_model, H, bias).to(dtype)
        s = m.MultiHeadAttention(d_model, H, bias=bias)
        names = set(dict(s.named_children()))
        ensure(names == {"qkv", "out"}, f"MultiHeadAttention submodules {sorted(names)}")
        ks, kr = s.state_dict(), r.state_dict()
        ensure(set(ks) == set(kr), f"state dict keys {sorted(ks)}, expected {sorted(kr)}")
        for n in kr:
            ensure(ks[n].shape == kr[n].shape, f"{n}: shape {tuple(ks[n].shape)}, expected {tuple(kr[n].shape)}")
        s.to(dtype)
        s.load_state_dict(kr)
        return s, r

    for d_model, H, bias, B, L in ((12, 4, True, 3, 5), (8, 2, False, 2, 4), (6, 3, True, 2, 1), (16, 4, True, 1, 3)):
        x = rnd(B, L, d_model)
        tag = f"d={d_model} H={H} bias={bias} B={B} L={L}"

        def fwd(x=x, d_model=d_model, H=H, bias=bias, B=B, L=L):
            s, r = build(d_model, H, bias)
            snap = Snap(x)
            close(s(x), r(x), "MHA causal (mask=None)")
            snap.check("MHA forward")
            full = torch.ones(L, L, dtype=torch.bool)
            close(s(x, full), r(x, full), "MHA with an all-True mask (replaces the causal one)")
            pad = torch.ones(B, 1, 1, L, dtype=torch.bool)
            pad[-1] = False  # the last sequence is all padding
            if L > 1 and B > 1:
                pad[0, ..., L - 1] = False
            snap = Snap(pad)
            out = s(x, pad)
            snap.check("MHA forward (mask)")
            close(out, r(x, pad), "MHA with padding (an all-padding sequence)")
            bias_row = r.out.bias if bias else torch.zeros(d_model, dtype=F64)
            close(out[-1], bias_row.expand(L, d_model), "MHA: an all-padding sequence must give out's bias")
        C.run(f"MHA forward {tag}", fwd)

        def grad(x=x, d_model=d_model, H=H, bias=bias, B=B, L=L):
            s, r = build(d_model, H, bias)
            module_grad_check("MHA causal", s, r, lambda mm, t: mm(t), lambda mm, t: mm(t), x)
            s, r = build(d_model, H, bias)
            pad = torch.ones(B, 1, 1, L, dtype=torch.bool)
            pad[-1] = False
            module_grad_check("MHA padding", s, r, lambda mm, t: mm(t, pad), lambda mm, t: mm(t, pad), x)
        C.run(f"MHA grad {tag}", grad)

    def half():
        for dt in (F32, F16, BF16):
            s, r = build(12, 4, True)
            s.to(dt)
            x = rnd(2, 3, 12)
            out = s(x.to(dt))
            expect_dtype(out, dt, "MHA")
            r2 = ref.RefMHA(12, 4, True).to(F64)
            r2.load_state_dict({n: p.to(dt).to(F64) for n, p in r.state_dict().items()})
            close(out, r2(x.to(dt).to(F64)), f"MHA {dt}", *tol(dt))
    C.run("MHA dtypes", half)

    def on_meta():
        s, _ = build(12, 4, True, F32)
        s.to(META)
        expect_meta(s(torch.empty(2, 3, 12, device=META)), "MHA")
        expect_meta(s(torch.empty(2, 3, 12, device=META), torch.ones(2, 1, 1, 3, dtype=torch.bool, device=META)), "MHA")
    C.run("MHA meta", on_meta)


# ----------------------------------------------------------------------------------- exercise 7
def ex7(m, C):
    for B, Hkv, L, d, rep in ((2, 2, 3, 4, 3), (3, 1, 2, 5, 4), (1, 3, 4, 2, 1), (2, 4, 1, 3, 2)):
        x = rnd(B, Hkv, L, d)

        def values(x=x, rep=rep):
            for dt in (F64, F32, F16):
                a = x.to(dt)
                snap = Snap(a)
                out = m.repeat_kv(a, rep)
                snap.check("repeat_kv")
                close(out, ref.repeat_kv(a.to(F64), rep), f"repeat_kv {tuple(x.shape)} n_rep={rep} {dt}", 0, 0)
                expect_dtype(out, dt, "repeat_kv")
        C.run(f"repeat_kv {tuple(x.shape)} n_rep={rep}", values)
        C.run(f"repeat_kv grad {tuple(x.shape)}", lambda x=x, rep=rep: grad_check(
            "repeat_kv", lambda t: m.repeat_kv(t, rep), lambda t: ref.repeat_kv(t, rep), [x]))
    C.run("repeat_kv meta", lambda: expect_meta(m.repeat_kv(torch.empty(2, 2, 3, 4, device=META), 2), "repeat_kv"))

    def build(d_model, H, Hkv, dtype=F64):
        torch.manual_seed(11)
        r = ref.RefGQA(d_model, H, Hkv).to(dtype)
        s = m.GroupedQueryAttention(d_model, H, Hkv)
        ks, kr = s.state_dict(), r.state_dict()
        ensure(set(ks) == set(kr), f"state dict keys {sorted(ks)}, expected {sorted(kr)}")
        for n in kr:
            ensure(ks[n].shape == kr[n].shape, f"{n}: shape {tuple(ks[n].shape)}, expected {tuple(kr[n].shape)}")
        s.to(dtype)
        s.load_state_dict(kr)
        return s, r

    for d_model, H, Hkv, B, L in ((12, 4, 2, 3, 5), (12, 4, 1, 2, 4), (8, 2, 2, 2, 3), (12, 6, 3, 1, 4), (8, 4, 2, 2, 1)):
        x = rnd(B, L, d_model)
        tag = f"d={d_model} H={H} Hkv={Hkv} B={B} L={L}"

        def fwd(x=x, d_model=d_model, H=H, Hkv=Hkv, B=B, L=L):
            s, r = build(d_model, H, Hkv)
            snap = Snap(x)
            close(s(x), r(x), "GQA causal (mask=None)")
            snap.check("GQA forward")
            full = torch.ones(L, L, dtype=torch.bool)
            close(s(x, full), r(x, full), "GQA with an all-True mask")
            pad = torch.ones(B, 1, 1, L, dtype=torch.bool)
            pad[-1] = False
            snap = Snap(pad)
            out = s(x, pad)
            snap.check("GQA forward (mask)")
            close(out, r(x, pad), "GQA with an all-padding sequence")
            ensure(bool((out[-1] == 0).all()), "GQA: an all-padding sequence must give zeros")
        C.run(f"GQA forward {tag}", fwd)

        def grad(x=x, d_model=d_model, H=H, Hkv=Hkv, B=B, L=L):
            s, r = build(d_model, H, Hkv)
            module_grad_check("GQA causal", s, r, lambda mm, t: mm(t), lambda mm, t: mm(t), x)
            s, r = build(d_model, H, Hkv)
            pad = torch.ones(B, 1, 1, L, dtype=torch.bool)
            pad[-1] = False
            module_grad_check("GQA padding", s, r, lambda mm, t: mm(t, pad), lambda mm, t: mm(t, pad), x)
        C.run(f"GQA grad {tag}", grad)

    def dtypes():
        for dt in (F32, F16, BF16):
            s, r = build(12, 4, 2)
            s.to(dt)
            x = rnd(2, 3, 12)
            out = s(x.to(dt))
            expect_dtype(out, dt, "GQA")
            r2 = ref.RefGQA(12, 4, 2).to(F64)
            r2.load_state_dict({n: p.to(dt).to(F64) for n, p in r.state_dict().items()})
            close(out, r2(x.to(dt).to(F64)), f"GQA {dt}", *tol(dt))
    C.run("GQA dtypes", dtypes)

    def on_meta():
        s, _ = build(12, 4, 2, F32)
        s.to(META)
        expect_meta(s(torch.empty(2, 3, 12, device=META)), "GQA")
    C.run("GQA meta", on_meta)


# ----------------------------------------------------------------------------------- exercise 8
def storage_ptr(t):
    return t.untyped_storage().data_ptr()


def ex8(m, C):
    def nbytes():
        for args, kw in (((32, 32, 128, 4096), {}), ((2, 3, 5, 7), {"batch_size": 4}),
                         ((1, 1, 1, 1), {"batch_size": 1, "bytes_per_value": 4}),
                         ((80, 8, 128, 1), {"batch_size": 3, "bytes_per_value": 2}), ((2, 3, 5, 7, 6, 8), {})):
            got, exp = m.kv_cache_bytes(*args, **kw), ref.kv_cache_bytes(*args, **kw)
            ensure(type(got) is int, f"kv_cache_bytes{args}: {type(got).__name__}, not int")
            ensure(got == exp, f"kv_cache_bytes{args} {kw}: {got}, expected {exp}")
    C.run("kv_cache_bytes", nbytes)

    def cache_basic():
        c = m.KVCache(2, 3, 4, 6, dtype=F64)
        ensure(len(c) == 0, f"len of a new cache: {len(c)}")
        k1, v1 = rnd(2, 3, 2, 4), rnd(2, 3, 2, 4)
        snap = Snap(k1, v1)
        K, V = c.update(k1, v1)
        snap.check("update")
        close(K, k1, "update: keys after one update", 0, 0)
        close(V, v1, "update: values after one update", 0, 0)
        ensure(len(c) == 2, f"len after 2 tokens: {len(c)}")
        p0 = storage_ptr(K)
        k2 = torch.zeros(2, 3, 1, 4, dtype=F64)  # a token whose keys are all zeros counts
        v2 = rnd(2, 3, 1, 4)
        K, V = c.update(k2, v2)
        ensure(len(c) == 3, f"len after a token of zeros: {len(c)}")
        close(K, torch.cat([k1, k2], 2), "update: keys after two updates", 0, 0)
        close(V, torch.cat([v1, v2], 2), "update: values after two updates", 0, 0)
        ensure(storage_ptr(K) == p0, "update: the keys are not in the storage allocated by __init__")
        raises(ValueError, lambda: c.update(rnd(2, 3, 4, 4), rnd(2, 3, 4, 4)), "update past max_len")
        ensure(len(c) == 3, f"a failed update changed len to {len(c)}")
        k3, v3 = rnd(2, 3, 3, 4), rnd(2, 3, 3, 4)
        K, V = c.update(k3, v3)  # exactly fills max_len
        ensure(len(c) == 6, f"len after filling to max_len: {len(c)}")
        close(K, torch.cat([k1, k2, k3], 2), "update: keys filled to max_len", 0, 0)
        close(V, torch.cat([v1, v2, v3], 2), "update: values filled to max_len", 0, 0)
        ensure(storage_ptr(K) == p0, "update: the keys are not in the storage allocated by __init__")
        raises(ValueError, lambda: c.update(rnd(2, 3, 1, 4), rnd(2, 3, 1, 4)), "update of a full cache")
        ensure(len(c) == 6, "a failed update changed len")
        c.reset()
        ensure(len(c) == 0, f"len after reset: {len(c)}")
        k4, v4 = rnd(2, 3, 1, 4), rnd(2, 3, 1, 4)
        K, V = c.update(k4, v4)
        close(K, k4, "update after reset: keys", 0, 0)
        close(V, v4, "update after reset: values", 0, 0)
        ensure(storage_ptr(K) == p0, "reset: the storage was not kept")
    C.run("KVCache update/len/reset/ValueError", cache_basic)

    def cache_exact():
        c = m.KVCache(1, 2, 3, 4)
        K, V = c.update(torch.zeros(1, 2, 4, 3), torch.ones(1, 2, 4, 3))
        ensure(len(c) == 4 and K.shape == (1, 2, 4, 3), "one update of exactly max_len tokens")
        expect_dtype((K, V), F32, "KVCache default dtype")
    C.run("KVCache one update of max_len tokens", cache_exact)

    def cache_dtype():
        for dt in (F16, BF16, F64):
            c = m.KVCache(1, 2, 3, 5, dtype=dt)
            K, V = c.update(rnd(1, 2, 2, 3).to(dt), rnd(1, 2, 2, 3).to(dt))
            expect_dtype((K, V), dt, "KVCache")
    C.run("KVCache dtype", cache_dtype)

    def cache_meta():
        c = m.KVCache(1, 2, 3, 5, dtype=F32, device=META)
        K, V = c.update(torch.empty(1, 2, 2, 3, device=META), torch.empty(1, 2, 2, 3, device=META))
        expect_meta((K, V), "KVCache")
        ensure(K.shape == (1, 2, 2, 3), "KVCache on meta: shape")
        c.update(torch.empty(1, 2, 1, 3, device=META), torch.empty(1, 2, 1, 3, device=META))
        ensure(len(c) == 3, "KVCache on meta: len")
    C.run("KVCache device", cache_meta)

    def build(d_model, H, Hkv, dtype=F64):
        torch.manual_seed(13)
        r = ref.RefGQA(d_model, H, Hkv).to(dtype)
        s = m.CachedGroupedQueryAttention(d_model, H, Hkv).to(dtype)
        s.load_state_dict(r.state_dict())
        return s, r

    for d_model, H, Hkv, B in ((12, 4, 2, 3), (12, 4, 1, 2), (8, 2, 2, 1), (12, 6, 3, 2)):
        tag = f"d={d_model} H={H} Hkv={Hkv} B={B}"
        x = rnd(B, 9, d_model)

        def chunks(x=x, d_model=d_model, H=H, Hkv=Hkv, B=B, sizes=(3, 1, 5)):
            s, r = build(d_model, H, Hkv)
            close(s(x), r(x), "cache=None: plain causal GQA")
            cache = m.KVCache(B, Hkv, d_model // H, 12, dtype=F64)
            outs, a = [], 0
            for n in sizes:
                xs = x[:, a:a + n]
                snap = Snap(xs)
                outs.append(s(xs, cache))
                snap.check("CachedGQA forward")
                a += n
            close(torch.cat(outs, 1), r(x), f"chunks {sizes} through one cache")
            ensure(len(cache) == 9, f"len(cache) after the chunks: {len(cache)}")
            cache = m.KVCache(B, Hkv, d_model // H, 12, dtype=F64)
            outs = [s(x[:, i:i + 1], cache) for i in range(9)]
            close(torch.cat(outs, 1), r(x), "one token at a time")
        C.run(f"CachedGQA forward {tag}", chunks)

        def grads(x=x, d_model=d_model, H=H, Hkv=Hkv, B=B):
            s, r = build(d_model, H, Hkv)

            def run_s(mm, t):
                cache = m.KVCache(B, Hkv, d_model // H, 9, dtype=F64)
                return torch.cat([mm(t[:, :4], cache), mm(t[:, 4:5], cache), mm(t[:, 5:], cache)], 1)
            module_grad_check("CachedGQA chunks", s, r, run_s, lambda mm, t: mm(t), x)
        C.run(f"CachedGQA grad {tag}", grads)

    def dtypes():
        for dt in (F32, F16, BF16):
            s, r = build(12, 4, 2)
            s.to(dt)
            x = rnd(2, 5, 12)
            cache = m.KVCache(2, 2, 3, 8, dtype=dt)
            out = torch.cat([s(x[:, :2].to(dt), cache), s(x[:, 2:].to(dt), cache)], 1)
            expect_dtype(out, dt, "CachedGQA")
            r2 = ref.RefGQA(12, 4, 2).to(F64)
            r2.load_state_dict({n: p.to(dt).to(F64) for n, p in r.state_dict().items()})
            close(out, r2(x.to(dt).to(F64)), f"CachedGQA {dt}", *tol(dt))
    C.run("CachedGQA dtypes", dtypes)

    def on_meta():
        s, _ = build(12, 4, 2, F32)
        s.to(META)
        cache = m.KVCache(2, 2, 3, 8, dtype=F32, device=META)
        expect_meta(s(torch.empty(2, 3, 12, device=META), cache), "CachedGQA")
        expect_meta(s(torch.empty(2, 2, 12, device=META), cache), "CachedGQA")
        expect_meta(s(torch.empty(2, 3, 12, device=META)), "CachedGQA (cache=None)")
    C.run("CachedGQA meta", on_meta)


# ----------------------------------------------------------------------------------- exercise 9
def causal_uniform(B, H, L):
    w = ref.causal_mask(L).to(F64)
    return (w / w.sum(-1, keepdim=True)).expand(B, H, L, L).clone()


def prev_head(L):
    p = torch.zeros(L, L, dtype=F64)
    p[0, 0] = 1
    for i in range(1, L):
        p[i, i - 1] = 1
    return p


def induction_head(L):
    s = L // 2
    p = causal_uniform(1, 1, L)[0, 0]
    for i in range(s, L):
        p[i] = 0
        p[i, i - s + 1] = 1
    return p


def random_pattern(B, H, L):
    s = rnd(B, H, L, L, scale=2.0)
    return ref.softmax(ref.apply_mask(s, ref.causal_mask(L)), -1)


def ex9(m, C):
    def tokens():
        g = torch.Generator().manual_seed(5)
        t = m.repeated_tokens(3, 10, 50, generator=g)
        ensure(isinstance(t, torch.Tensor) and t.dtype == torch.long, "repeated_tokens: not an int64 tensor")
        ensure(t.device.type == "cpu", "repeated_tokens: not on the CPU")
        ensure(tuple(t.shape) == (3, 20), f"repeated_tokens: shape {tuple(t.shape)}")
        ensure(torch.equal(t[:, :10], t[:, 10:]), "repeated_tokens: second half is not the first again")
        ensure(int(t.min()) >= 0 and int(t.max()) < 50, "repeated_tokens: token out of range")
        torch.manual_seed(1)
        a = m.repeated_tokens(4, 30, 1000, generator=torch.Generator().manual_seed(9))
        torch.manual_seed(2)
        b = m.repeated_tokens(4, 30, 1000, generator=torch.Generator().manual_seed(9))
        ensure(torch.equal(a, b), "repeated_tokens: the same seeded generator gave different tokens")
        c = m.repeated_tokens(4, 30, 1000, generator=torch.Generator().manual_seed(10))
        ensure(not torch.equal(a, c), "repeated_tokens: different seeds gave the same tokens")
        ensure(bool((m.repeated_tokens(2, 5, 1) == 0).all()), "repeated_tokens: vocab_size 1 must give zeros")
        two = m.repeated_tokens(4, 50, 2, generator=torch.Generator().manual_seed(3))
        ensure(set(two.unique().tolist()) == {0, 1}, "repeated_tokens: vocab_size 2 must draw both 0 and 1")
        one = m.repeated_tokens(1, 1, 7)
        ensure(tuple(one.shape) == (1, 2) and one[0, 0] == one[0, 1], "repeated_tokens(1, 1, 7)")
    C.run("repeated_tokens", tokens)

    for B, H, L in ((2, 3, 5), (3, 2, 2), (1, 4, 8), (3, 3, 4)):
        p = random_pattern(B, H, L)

        def prev(p=p):
            for dt in (F64, F32, F16):
                a = p.to(dt)
                snap = Snap(a)
                out = m.previous_token_score(a)
                snap.check("previous_token_score")
                close(out, ref.previous_token_score(a.to(F64)), f"previous_token_score {tuple(p.shape)} {dt}", *tol(dt))
                expect_dtype(out, dt, "previous_token_score")
        C.run(f"previous_token_score {B, H, L}", prev)
    for B, H, s in ((2, 3, 4), (3, 2, 1), (1, 4, 3), (2, 2, 5)):
        p = random_pattern(B, H, 2 * s)

        def ind(p=p, s=s):
            for dt in (F64, F32, F16):
                a = p.to(dt)
                snap = Snap(a)
                out = m.induction_score(a, s)
                snap.check("induction_score")
                close(out, ref.induction_score(a.to(F64), s), f"induction_score {tuple(p.shape)} {dt}", *tol(dt))
                expect_dtype(out, dt, "induction_score")
        C.run(f"induction_score {B, H} seq_len={s}", ind)

    def errors():
        raises(ValueError, lambda: m.previous_token_score(random_pattern(2, 3, 4)[0]), "previous_token_score 3-D")
        raises(ValueError, lambda: m.previous_token_score(rnd(2, 3, 4, 5)), "previous_token_score non-square")
        raises(ValueError, lambda: m.previous_token_score(torch.ones(2, 3, 1, 1, dtype=F64)), "previous_token_score L=1")
        raises(ValueError, lambda: m.induction_score(random_pattern(2, 3, 8)[0], 4), "induction_score 3-D")
        raises(ValueError, lambda: m.induction_score(rnd(2, 3, 8, 6), 4), "induction_score non-square")
        raises(ValueError, lambda: m.induction_score(random_pattern(2, 3, 8), 3), "induction_score L=8 seq_len=3")
        raises(ValueError, lambda: m.induction_score(random_pattern(2, 3, 9), 4), "induction_score odd L=9 seq_len=4")
        raises(ValueError, lambda: m.induction_score(random_pattern(1, 1, 7), 4), "induction_score L=7 seq_len=4")
    C.run("ValueErrors", errors)

    p = random_pattern(2, 3, 6)
    C.run("scores meta", lambda: (expect_meta(m.previous_token_score(meta(p)), "previous_token_score"),
                                  expect_meta(m.induction_score(meta(p), 3), "induction_score"),
                                  expect_dtype(m.previous_token_score(meta(p).half()), F16, "previous_token_score"),
                                  expect_dtype(m.induction_score(meta(p).bfloat16(), 3), BF16, "induction_score")))

    def heads():
        L, B = 8, 2
        u = causal_uniform(B, 1, L)[:, 0]
        layer0 = torch.stack([u, prev_head(L).expand(B, L, L), u], 1)
        layer1 = torch.stack([u, u, induction_head(L).expand(B, L, L)], 1)
        pats = [layer0, layer1]
        snap = Snap(*pats)
        got = m.find_heads(pats)
        snap.check("find_heads")
        exp = {"previous_token": [(0, 1)], "induction": [(1, 2)]}
        ensure(isinstance(got, dict) and set(got) == set(exp), f"find_heads keys {sorted(got) if isinstance(got, dict) else got}")
        for key in exp:
            ensure(isinstance(got[key], list), f"find_heads[{key!r}] is not a list")
            for item in got[key]:
                ensure(isinstance(item, tuple) and len(item) == 2 and all(type(i) is int for i in item),
                       f"find_heads[{key!r}]: {item!r} is not an (int, int) tuple")
        ensure(got == exp, f"find_heads: {got}")
        got2 = m.find_heads(tuple(pats), threshold=0.4)
        ensure(got2 == exp, "find_heads on a tuple")
        low = m.find_heads([layer1, layer0], threshold=0.01)
        exp_low = ref.find_heads([layer1, layer0], threshold=0.01)
        ensure(low == exp_low, f"find_heads threshold 0.01: {low}, expected {exp_low}")
        empty = m.find_heads([causal_uniform(B, 2, L)])
        ensure(empty == {"previous_token": [], "induction": []}, f"find_heads with no head: {empty}")
    C.run("find_heads", heads)

    def boundary():
        L = 6
        half = torch.zeros(L, L, dtype=F64)
        half[0, 0] = 1
        for i in range(1, L):
            half[i, i - 1] = half[i, i] = 0.5  # previous-token score exactly 0.5
        pat = torch.stack([half, causal_uniform(1, 1, L)[0, 0]], 0)[None]
        got = m.find_heads([pat], threshold=0.5)
        ensure(got["previous_token"] == [], f"score == threshold must not count: {got}")
        got = m.find_heads([pat], threshold=0.49)
        ensure(got["previous_token"] == [(0, 0)], f"score 0.5 > 0.49 must count: {got}")
    C.run("find_heads threshold is strict", boundary)
    C.run("find_heads odd L", lambda: raises(ValueError, lambda: m.find_heads([random_pattern(1, 2, 7)]), "find_heads odd L"))


# ---------------------------------------------------------------------------------- exercise 10
def online_inputs():
    a = rnd(3, 10, scale=3.0)
    a[1, 8] = 12.0  # the max in the last (short) block
    b = rnd(4, 7, scale=2.0)
    b[0, :3] = NEG
    b[2] = NEG  # fully masked
    c = torch.tensor([[-1e4, -1e4 + 1, -1e4 + 3, -1e4 + 2, -1e4 + 0.5],
                      [1e4, 1e4 - 2, 0, -1e4, 1e4 - 1], [0.0, 1e4, 0.0, 0.0, 1e4]], dtype=F64)
    d = rnd(2, 3, 9, scale=4.0)
    e = rnd(6, scale=2.0)
    return [("rows", a), ("masked", b), ("huge", c), ("3-D", d), ("1-D", e)]


TILED_CASES = [((), 5, 7, 3, 4, 2, False), ((2,), 6, 6, 5, 3, 4, True), ((2, 3), 3, 8, 4, 2, 3, True),
               ((1, 2), 6, 4, 3, 3, 2, True), ((2,), 1, 5, 3, 2, 16, True), ((), 4, 4, 2, 2, 1, True),
               ((3,), 4, 9, 6, 2, 4, False), ((2,), 5, 3, 2, 3, 1, True)]


def ex10(m, C):
    def call(f, *a, **k):
        with forbid_softmax():
            return f(*a, **k)

    def cost():
        for L, d in ((10, 4), (1, 1), (1024, 768), (7, 3)):
            got, exp = m.attention_cost(L, d), ref.attention_cost(L, d)
            ensure(isinstance(got, dict) and set(got) == set(exp), f"attention_cost keys {got}")
            for n in exp:
                ensure(type(got[n]) is int, f"attention_cost[{n!r}] is {type(got[n]).__name__}, not int")
                ensure(got[n] == exp[n], f"attention_cost({L}, {d})[{n!r}] = {got[n]}, expected {exp[n]}")
        for d in (768, 4096, 1, 5):
            got = m.crossover_length(d)
            ensure(type(got) is int, f"crossover_length({d}) is {type(got).__name__}, not int")
            ensure(got == ref.crossover_length(d), f"crossover_length({d}) = {got}")
    C.run("attention_cost / crossover_length", cost)

    for label, x in online_inputs():
        for bs in (1, 3, 4, 16):
            def values(x=x, bs=bs, label=label):
                for dt in (F64, F32):
                    a = x.to(dt)
                    snap = Snap(a)
                    out = call(m.online_softmax, a, bs)
                    snap.check("online_softmax")
                    close(out, ref.softmax(x, -1), f"online_softmax {label} block {bs} {dt}", *tol(dt))
                    expect_dtype(out, dt, "online_softmax")
            C.run(f"online_softmax {label} block={bs}", values)
    x = online_inputs()[1][1]
    for dt in (F16, BF16):
        C.run(f"online_softmax {dt}", lambda dt=dt: (
            close(call(m.online_softmax, x.to(dt), 3), ref.softmax(x.to(dt).to(F64)), "online half", *tol(dt)),
            expect_dtype(call(m.online_softmax, x.to(dt), 3), dt, "online_softmax")))
    C.run("online_softmax meta", lambda: (expect_meta(call(m.online_softmax, meta(x), 3), "online_softmax"),
                                          expect_dtype(call(m.online_softmax, meta(x).half(), 3), F16, "online")))

    def tref(q, k, v, bs, causal):
        return ref.tiled_attention(q, k, v, bs, causal)

    for lead, lq, lk, dk, dv, bs, causal in TILED_CASES:
        q, k, v = rnd(*lead, lq, dk), rnd(*lead, lk, dk), rnd(*lead, lk, dv)
        tag = f"{lead}+({lq},{lk}) dk={dk} block={bs} causal={causal}"

        def values(q=q, k=k, v=v, bs=bs, causal=causal, tag=tag):
            for dt in (F64, F32):
                a = [q.to(dt), k.to(dt), v.to(dt)]
                snap = Snap(*a)
                out = call(m.tiled_attention, *a, bs, causal=causal)
                snap.check("tiled_attention")
                close(out, tref(q, k, v, bs, causal), f"tiled_attention {tag} {dt}", *tol(dt))
                expect_dtype(out, dt, "tiled_attention")
        C.run(f"tiled_attention {tag}", values)
        C.run(f"tiled_attention grad {tag}", lambda q=q, k=k, v=v, bs=bs, causal=causal: grad_check(
            "tiled_attention", lambda a, b, c: call(m.tiled_attention, a, b, c, bs, causal=causal),
            lambda a, b, c: tref(a, b, c, bs, causal), [q, k, v]))
    C.run("tiled_attention default is not causal", lambda: close(
        call(m.tiled_attention, *(t := [rnd(2, 4, 3), rnd(2, 5, 3), rnd(2, 5, 2)]), 2), tref(*t, 2, False), "default"))
    q, k, v = rnd(2, 6, 4), rnd(2, 4, 4), rnd(2, 4, 3)
    for dt in (F16, BF16):
        C.run(f"tiled_attention {dt}", lambda dt=dt: (
            close(call(m.tiled_attention, q.to(dt), k.to(dt), v.to(dt), 3, causal=True),
                  tref(*[t.to(dt).to(F64) for t in (q, k, v)], 3, True), "tiled half", *tol(dt)),
            expect_dtype(call(m.tiled_attention, q.to(dt), k.to(dt), v.to(dt), 3, causal=True), dt, "tiled")))
    C.run("tiled_attention meta", lambda: (
        expect_meta(call(m.tiled_attention, meta(q), meta(k), meta(v), 3, causal=True), "tiled_attention"),
        expect_meta(call(m.tiled_attention, meta(q), meta(k), meta(v), 3), "tiled_attention"),
        expect_dtype(call(m.tiled_attention, meta(q).half(), meta(k).half(), meta(v).half(), 3, causal=True), F16, "tiled")))

    def memory():
        L, bs = 64, 8
        for causal in (False, True):
            for lq in (L, L // 2):
                q, k, v = rnd(1, lq, 4), rnd(1, L, 4), rnd(1, L, 4)
                mode = MaxNumel()
                with forbid_softmax(), mode:
                    m.tiled_attention(q, k, v, bs, causal=causal)
                ensure(mode.max <= lq * L // 4, f"tiled_attention (causal={causal}, L_q={lq}, L_k={L}, block {bs}) "
                       f"made a tensor of {mode.max} elements; a block of scores is {lq * bs}, the full matrix {lq * L}")
    C.run("tiled_attention memory", memory)


# ------------------------------------------------------------------------------------- headers
HEADER_RE = re.compile(r"# lumen-unseen: exercise=(\d+) kind=(wrong|honest)$")
PASS_LINE = "✓ exercise3  Scale by √d_k  21/21  on par"


def check_header(path, n, kind, C):
    lines = path.read_text().splitlines()

    def header():
        m0 = HEADER_RE.match(lines[0])
        ensure(m0, f"first line {lines[0]!r}")
        ensure(int(m0.group(1)) == n and m0.group(2) == kind, "first line does not match folder / file name")
        i = 1
        fields = {"mistake": [], "ideal": [], "method": [], "expect": [], "reject": []}
        while i < len(lines) and lines[i].startswith("# "):
            mm = re.match(r"# (mistake|ideal|method|expect|reject): (.+)$", lines[i])
            ensure(mm, f"header line {i + 1} not in the format: {lines[i]!r}")
            fields[mm.group(1)].append(mm.group(2))
            i += 1
        ensure(lines[i].startswith('"""Exercise'), "the stub's docstring does not follow the header")
        order = [re.match(r"# (\w+):", ln).group(1) for ln in lines[1:i]]
        if kind == "wrong":
            ensure(order[:2] == ["mistake", "ideal"], f"wrong file: header order {order}")
            ensure(len(fields["mistake"]) == 1 and len(fields["ideal"]) == 1 and not fields["method"], "mistake/ideal lines")
        else:
            ensure(order[:1] == ["method"] and len(fields["method"]) == 1 and not fields["ideal"] and not fields["mistake"],
                   f"honest file: header order {order}")
        ensure(order[len(order) - len(fields["expect"]) - len(fields["reject"]):] ==
               ["expect"] * len(fields["expect"]) + ["reject"] * len(fields["reject"]), "expect lines then reject lines")
        ensure(fields["expect"], "no expect line")
        for r in fields["expect"] + fields["reject"]:
            try:
                re.compile(r, re.I)
            except re.error as e:
                raise Fail(f"bad regex {r!r}: {e}")
        text = fields["ideal"][0] if kind == "wrong" else PASS_LINE
        for r in fields["expect"]:
            ensure(re.search(r, text, re.I), f"expect {r!r} does not match the {'ideal' if kind == 'wrong' else 'pass line'}")
        for r in fields["reject"]:
            ensure(not re.search(r, text, re.I), f"reject {r!r} matches the {'ideal' if kind == 'wrong' else 'pass line'}")
    C.run("header", header)

    def structure():
        stub_name = {1: "exercise1_projection.py", 2: "exercise2_scoring.py", 3: "exercise3_scaling.py",
                     4: "exercise4_masking.py", 5: "exercise5_softmax.py", 6: "exercise6_multihead.py",
                     7: "exercise7_gqa.py", 8: "exercise8_kv_cache.py", 9: "exercise9_head_patterns.py",
                     10: "exercise10_tiled_attention.py"}[n]
        stub = [ln for ln in (STUBS / stub_name).read_text().splitlines() if "raise NotImplementedError(" not in ln]
        text = path.read_text()
        ensure("NotImplementedError" not in text, "NotImplementedError left in the file")
        it = iter(lines)
        for s in stub:
            for ln in it:
                if ln == s:
                    break
            else:
                raise Fail(f"stub line missing or out of order: {s!r}")
    C.run("structure", structure)


CHECKS = {1: ex1, 2: ex2, 3: ex3, 4: ex4, 5: ex5, 6: ex6, 7: ex7, 8: ex8, 9: ex9, 10: ex10}


def load(path):
    name = f"corpus_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_file(path):
    n = int(path.parent.name.replace("exercise", ""))
    kind = path.name.split("_", 1)[0]
    C = Collector()
    check_header(path, n, kind, C)
    head_fails = list(C.fails)
    try:
        mod = load(path)
    except Exception as e:  # noqa: BLE001
        C.fails.append(f"import: {type(e).__name__}: {e}")
        return kind, head_fails, C
    torch.manual_seed(0)
    CHECKS[n](mod, C)
    return kind, head_fails, C


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("targets", nargs="*", help="exercise numbers or file paths (default: all)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failed check")
    args = ap.parse_args()
    files = []
    for t in args.targets or [str(i) for i in range(1, 11)]:
        if t.isdigit():
            files += sorted((ROOT / f"exercise{t}").glob("*.py"))
        else:
            files.append(Path(t).resolve())
    t0 = time.time()
    bad = 0
    counts = {"wrong": 0, "honest": 0}
    for path in files:
        t1 = time.time()
        kind, head_fails, C = check_file(path)
        counts[kind] = counts.get(kind, 0) + 1
        behaviour = [f for f in C.fails if f not in head_fails]
        rel = path.relative_to(ROOT)
        if head_fails:
            status = "BAD HEADER"
        elif kind == "honest":
            status = "ok" if not behaviour else "HONEST FAILS"
        else:
            status = "ok" if behaviour else "WRONG PASSES"
        if status != "ok":
            bad += 1
        nf = len(behaviour)
        print(f"{status:13s} {rel}  ({nf}/{C.count} checks failed, {time.time() - t1:.1f}s)")
        show = head_fails + (behaviour if (args.verbose or status == "HONEST FAILS") else behaviour[:2])
        if status != "ok" or args.verbose:
            for f in (head_fails + behaviour if args.verbose or status != "ok" else []):
                print(f"      - {f}")
        elif kind == "wrong":
            for f in show[:1]:
                print(f"      first failure: {f}")
    print(f"\n{len(files)} files ({counts.get('wrong', 0)} wrong, {counts.get('honest', 0)} honest), "
          f"{bad} problem(s), {time.time() - t0:.0f}s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
