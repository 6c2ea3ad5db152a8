"""Small test harness for the corpus checker."""
import contextlib
import importlib.util
import math
import traceback
import warnings

import torch
import torch.nn.functional as F

F64, F32, F16, BF16 = torch.float64, torch.float32, torch.float16, torch.bfloat16
TOL = {F64: (1e-7, 1e-9), F32: (1e-4, 1e-5), F16: (2e-2, 2e-2), BF16: (6e-2, 6e-2)}


class Fail(AssertionError):
    pass


def load(path):
    name = "corpus_" + path.replace("/", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(mod)
    return mod


def need(cond, msg):
    if not cond:
        raise Fail(msg)


def close(got, exp, dtype=None, what="output"):
    """got: the student's tensor; exp: the reference (any dtype). dtype: the dtype got must have."""
    need(isinstance(got, torch.Tensor), f"{what}: not a tensor ({type(got).__name__})")
    need(tuple(got.shape) == tuple(exp.shape), f"{what}: shape {tuple(got.shape)}, expected {tuple(exp.shape)}")
    dtype = dtype or exp.dtype
    need(got.dtype == dtype, f"{what}: dtype {got.dtype}, expected {dtype}")
    if got.dtype == torch.bool or not got.dtype.is_floating_point:
        need(torch.equal(got.cpu(), exp.cpu().to(got.dtype)), f"{what}: values differ")
        return
    rtol, atol = TOL.get(dtype, TOL[F32])
    g, e = got.detach().double().cpu(), exp.detach().double().cpu()
    need(torch.equal(torch.isnan(g), torch.isnan(e)), f"{what}: NaN pattern differs (got {int(torch.isnan(g).sum())} NaN)")
    fin = torch.isfinite(e)
    need(torch.equal(g[~fin & ~torch.isnan(e)], e[~fin & ~torch.isnan(e)]), f"{what}: infinities differ")
    if fin.any():
        err = (g[fin] - e[fin]).abs()
        bound = atol + rtol * e[fin].abs()
        need(bool((err <= bound).all()), f"{what}: values differ (max abs err {err.max().item():.3g})")


def snapshot(*ts):
    return [(t, tuple(t.shape), tuple(t.stride()), t.detach().clone()) for t in ts]


def unchanged(snap, what="input"):
    for i, (t, shape, stride, val) in enumerate(snap):
        need(tuple(t.shape) == shape and tuple(t.stride()) == stride, f"{what} {i}: shape/stride changed in place")
        need(torch.equal(torch.nan_to_num(t.detach()), torch.nan_to_num(val)), f"{what} {i}: values changed in place")


def leaf(t):
    return t.detach().clone().requires_grad_(True)


def grads_of(fn, inputs, seed=123):
    """Backward of a fixed random linear functional of fn(*inputs); returns the inputs' grads."""
    ins = [leaf(t) for t in inputs]
    out = fn(*ins)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    g = torch.Generator().manual_seed(seed)
    loss = 0
    for o in outs:
        w = torch.randn(o.shape, generator=g, dtype=torch.float64).to(o.dtype)
        loss = loss + (o.masked_fill(~torch.isfinite(o.detach()), 0) * w).sum()
    loss.backward()
    return [i.grad for i in ins]


def grad_close(fn, ref, inputs, what="grad"):
    gs = grads_of(fn, inputs)
    rs = grads_of(ref, inputs)
    for i, (g, r) in enumerate(zip(gs, rs)):
        if r is None:
            continue
        need(g is not None, f"{what}: input {i} got no gradient")
        close(g, r, what=f"{what} of input {i}")


@contextlib.contextmanager
def banned_softmax():
    """Make torch's softmax and fused attention raise while the student's code runs."""
    def boom(*a, **k):
        raise Fail("used a banned function (torch softmax / fused attention)")
    targets = [(torch, "softmax"), (torch, "log_softmax"), (F, "softmax"), (F, "log_softmax"),
               (torch.Tensor, "softmax"), (torch.Tensor, "log_softmax"), (torch.special, "softmax"),
               (F, "scaled_dot_product_attention")]
    saved = [(o, n, getattr(o, n)) for o, n in targets]
    try:
        for o, n in targets:
            setattr(o, n, boom)
        yield
    finally:
        for o, n, f in saved:
            setattr(o, n, f)


class Report:
    def __init__(self):
        self.results = []

    def test(self, name):
        def deco(fn):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fn()
                self.results.append((name, True, ""))
            except Fail as e:
                self.results.append((name, False, str(e)))
            except Exception as e:  # noqa
                self.results.append((name, False, f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:200]))
            return fn
        return deco

    @property
    def failed(self):
        return [(n, m) for n, ok, m in self.results if not ok]


def runs(*calls):
    """True if any of the zero-arg callables runs without raising."""
    for c in calls:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                c()
            return True
        except Exception:
            pass
    return False


def rnd(*shape, dtype=F64, seed=0, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=F64) * scale).to(dtype)
