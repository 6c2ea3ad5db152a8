"""Check every corpus file against the float64 reference in ref.py.

Honest files must pass every check of their exercise; wrong files must fail at least one.
Usage: python check_corpus.py [path-or-substring ...]   (default: the whole corpus)
"""
import contextlib
import glob
import importlib.util
import math
import os
import re
import sys
import traceback
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import ref  # noqa: E402

D64 = torch.float64
_counter = [0]


def load(path):
    _counter[0] += 1
    spec = importlib.util.spec_from_file_location(f"student_{_counter[0]}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rnd(*shape, seed=0, dtype=D64, grad=False):
    t = torch.randn(*shape, generator=gen(seed), dtype=torch.float64).to(dtype)
    if grad:
        t.requires_grad_(True)
    return t


def close(a, b, tol=1e-8):
    if not isinstance(a, torch.Tensor):
        raise AssertionError(f"not a tensor: {type(a)}")
    if tuple(a.shape) != tuple(b.shape):
        raise AssertionError(f"shape {tuple(a.shape)} != expected {tuple(b.shape)}")
    a64, b64 = a.detach().double(), b.detach().double()
    if not torch.allclose(a64, b64, atol=tol, rtol=tol, equal_nan=False):
        diff = (a64 - b64).abs()
        diff = diff[~torch.isnan(diff)]
        raise AssertionError(f"values differ (max |diff| {float(diff.max()) if diff.numel() else 'nan'}, nan={bool(torch.isnan(a64).any())})")


class Forbidden(Exception):
    pass


@contextlib.contextmanager
def forbid_softmax(also_sdpa=True):
    def bad(*a, **k):
        raise Forbidden("called a forbidden torch softmax / fused attention")
    saved = []
    targets = [(torch, "softmax"), (torch, "log_softmax"), (F, "softmax"), (F, "log_softmax"),
               (torch.special, "softmax"), (torch.special, "log_softmax"), (torch.Tensor, "softmax"),
               (torch.Tensor, "log_softmax"), (torch, "_softmax")]
    if also_sdpa:
        targets.append((F, "scaled_dot_product_attention"))
    for obj, name in targets:
        if hasattr(obj, name):
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, bad)
    try:
        yield
    finally:
        for obj, name, f in saved:
            setattr(obj, name, f)


@contextlib.contextmanager
def forbid_sdpa():
    def bad(*a, **k):
        raise Forbidden("called torch's fused attention")
    f = F.scaled_dot_product_attention
    F.scaled_dot_product_attention = bad
    try:
        yield
    finally:
        F.scaled_dot_product_attention = f


def snapshot(*ts):
    return [(t.detach().clone(), tuple(t.shape), t.stride()) for t in ts]


def unchanged(snap, ts, what="input"):
    for (c, shp, st), t in zip(snap, ts):
        if tuple(t.shape) != shp or t.stride() != st:
            raise AssertionError(f"{what} changed shape/stride {shp} -> {tuple(t.shape)}")
        if not torch.equal(c, t.detach()):
            raise AssertionError(f"{what} values were modified")


def grads_of(fn, inputs, seed=7):
    """Sum of outputs times fixed random weights, backward; returns grads of inputs."""
    for t in inputs:
        t.grad = None
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    loss = 0
    for i, o in enumerate(outs):
        if not isinstance(o, torch.Tensor) or not o.requires_grad:
            raise AssertionError(f"output {i} has no autograd history")
        w = torch.randn(o.shape, generator=gen(seed + i), dtype=torch.float64).to(o.dtype)
        loss = loss + (o * w).sum()
    loss.backward()
    gs = []
    for t in inputs:
        gs.append(t.grad.clone() if t.grad is not None else None)
        t.grad = None
    return gs


def same_grads(fs, fr, make_inputs, tol=1e-7):
    a = make_inputs()
    b = [t.detach().clone().requires_grad_(True) for t in a]
    gs, gr = grads_of(fs, a), grads_of(fr, b)
    for i, (x, y) in enumerate(zip(gs, gr)):
        if y is None:
            continue
        if x is None:
            raise AssertionError(f"no gradient reaches input {i}")
        if not torch.isfinite(x).all():
            raise AssertionError(f"gradient of input {i} is not finite")
        close(x, y, tol)


def meta(*shape):
    return torch.empty(*shape, device="meta")


def on_meta(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if o.device.type != "meta":
            raise AssertionError(f"output on {o.device}, expected the inputs' device")


def dtype_is(out, dt):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if o.dtype != dt:
            raise AssertionError(f"output dtype {o.dtype}, expected {dt}")


CHECKS = {}


def check(ex):
    def deco(f):
        CHECKS.setdefault(ex, []).append(f)
        return f
    return deco


# ---------------------------------------------------------------- exercise 1
@check(1)
def ex1_forward(m):
    for shp, dm, dk, dv in [((4,), 3, 3, 3), ((2, 5), 6, 4, 5), ((2, 3, 1), 4, 2, 3)]:
        x = rnd(*shp, dm, seed=1)
        wq, wk, wv = rnd(dm, dk, seed=2), rnd(dm, dk, seed=3), rnd(dm, dv, seed=4)
        for a, b in zip(m.project(x, wq, wk, wv), ref.project(x, wq, wk, wv)):
            close(a, b)


@check(1)
def ex1_fused_forward(m):
    for shp, dm, d in [((4,), 3, 3), ((2, 5), 6, 4), ((2, 3, 1), 4, 2), ((3,), 2, 5)]:
        x, w = rnd(*shp, dm, seed=1), rnd(dm, 3 * d, seed=2)
        res = m.fused_project(x, w)
        if len(res) != 3:
            raise AssertionError("fused_project must return three tensors")
        for a, b in zip(res, ref.fused_project(x, w)):
            close(a, b)


@check(1)
def ex1_grads(m):
    same_grads(lambda x, a, b, c: m.project(x, a, b, c), ref.project,
               lambda: [rnd(2, 4, 5, seed=1, grad=True), rnd(5, 3, seed=2, grad=True),
                        rnd(5, 3, seed=3, grad=True), rnd(5, 2, seed=4, grad=True)])
    same_grads(m.fused_project, ref.fused_project,
               lambda: [rnd(2, 4, 5, seed=1, grad=True), rnd(5, 9, seed=2, grad=True)])


@check(1)
def ex1_dtype(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        x, w = rnd(2, 3, 4, dtype=dt), rnd(4, 6, dtype=dt)
        dtype_is(m.project(x, w, w, w), dt)
        dtype_is(m.fused_project(x, w), dt)


@check(1)
def ex1_inputs_unchanged(m):
    x, wq, wk, wv, w = rnd(3, 4), rnd(4, 2), rnd(4, 2), rnd(4, 3), rnd(4, 6)
    s = snapshot(x, wq, wk, wv, w)
    m.project(x, wq, wk, wv)
    m.fused_project(x, w)
    unchanged(s, [x, wq, wk, wv, w])


@check(1)
def ex1_device(m):
    on_meta(m.project(meta(2, 3, 4), meta(4, 2), meta(4, 2), meta(4, 3)))
    on_meta(m.fused_project(meta(2, 3, 4), meta(4, 6)))


# ---------------------------------------------------------------- exercise 2
SHAPES2 = [((4, 3), (4, 3)), ((1, 3), (5, 3)), ((2, 3, 4), (2, 6, 4)), ((2, 3, 1, 4), (2, 3, 5, 4)),
           ((3, 2), (1, 2)), ((1, 2, 3), (1, 4, 3))]


@check(2)
def ex2_forward(m):
    for sq, sk in SHAPES2:
        q, k = rnd(*sq, seed=1), rnd(*sk, seed=2)
        close(m.attention_scores(q, k), ref.attention_scores(q, k))


@check(2)
def ex2_grads(m):
    same_grads(m.attention_scores, ref.attention_scores,
               lambda: [rnd(2, 3, 4, seed=1, grad=True), rnd(2, 5, 4, seed=2, grad=True)])


@check(2)
def ex2_dtype(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        dtype_is(m.attention_scores(rnd(2, 3, 4, dtype=dt), rnd(2, 5, 4, dtype=dt)), dt)


@check(2)
def ex2_inputs_unchanged(m):
    q, k = rnd(2, 3, 4), rnd(2, 5, 4)
    s = snapshot(q, k)
    m.attention_scores(q, k)
    unchanged(s, [q, k])


@check(2)
def ex2_device(m):
    on_meta(m.attention_scores(meta(2, 3, 4), meta(2, 5, 4)))


# ---------------------------------------------------------------- exercise 3
@check(3)
def ex3_scale_forward(m):
    for shp, dk in [((4, 4), 4), ((2, 3, 5), 3), ((2, 2, 3, 4), 64), ((1, 1), 7), ((3, 2), 1)]:
        s = rnd(*shp)
        close(m.scale_scores(s, dk), ref.scale_scores(s, dk))


@check(3)
def ex3_scaled_forward(m):
    for sq, sk in SHAPES2:
        q, k = rnd(*sq, seed=1), rnd(*sk, seed=2)
        close(m.scaled_scores(q, k), ref.scaled_scores(q, k))


@check(3)
def ex3_grads(m):
    same_grads(lambda s: m.scale_scores(s, 3), lambda s: ref.scale_scores(s, 3),
               lambda: [rnd(2, 3, 4, grad=True)])
    same_grads(m.scaled_scores, ref.scaled_scores,
               lambda: [rnd(2, 3, 4, seed=1, grad=True), rnd(2, 5, 4, seed=2, grad=True)])


@check(3)
def ex3_dtype(m):
    for dt in (torch.float32, torch.bfloat16, torch.float16):
        dtype_is(m.scale_scores(rnd(2, 3, dtype=dt), 3), dt)
        dtype_is(m.scaled_scores(rnd(2, 3, 4, dtype=dt), rnd(2, 5, 4, dtype=dt)), dt)


@check(3)
def ex3_inputs_unchanged(m):
    s, q, k = rnd(3, 4), rnd(2, 3, 4), rnd(2, 5, 4)
    sn = snapshot(s, q, k)
    m.scale_scores(s, 4)
    m.scaled_scores(q, k)
    unchanged(sn, [s, q, k])


@check(3)
def ex3_device(m):
    on_meta(m.scale_scores(meta(3, 4), 4))
    on_meta(m.scaled_scores(meta(2, 3, 4), meta(2, 5, 4)))


# ---------------------------------------------------------------- more exercises
exec(open(os.path.join(HERE, "checks_4_10.py")).read())


# ---------------------------------------------------------------- driver
def run_file(path):
    ex = int(re.search(r"exercise(\d+)", path).group(1))
    kind = "honest" if os.path.basename(path).startswith("honest_") else "wrong"
    fails = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod = load(path)
    except Exception as e:  # noqa: BLE001
        return ex, kind, [("import", repr(e))]
    for c in CHECKS.get(ex, []):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.manual_seed(0)
                c(mod)
        except Exception as e:  # noqa: BLE001
            msg = str(e).split("\n")[0][:160] or type(e).__name__
            fails.append((c.__name__, f"{type(e).__name__}: {msg}"))
    return ex, kind, fails


def main(argv):
    files = sorted(glob.glob(os.path.join(ROOT, "exercise*", "*.py")))
    if argv:
        files = [f for f in files if any(a in f for a in argv)]
    bad = 0
    for f in files:
        ex, kind, fails = run_file(f)
        rel = os.path.relpath(f, ROOT)
        if kind == "honest":
            ok = not fails
            print(f"{'OK ' if ok else 'BAD'} {rel}: " + ("passes all checks" if ok else f"FAILS {fails}"))
        else:
            ok = bool(fails)
            print(f"{'OK ' if ok else 'BAD'} {rel}: " + (
                "fails " + "; ".join(f"{n} ({msg})" for n, msg in fails) if ok else "passes every check!"))
        bad += not ok
    print(f"\n{len(files)} files, {bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
