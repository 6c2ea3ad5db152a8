"""Test helpers shared by the per-exercise tests."""
import math
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from ref import d64, F64

F32, F16, BF16 = torch.float32, torch.float16, torch.bfloat16
TOL = {F64: 1e-9, F32: 2e-4, F16: 2e-2, BF16: 6e-2}
TESTS = {n: [] for n in range(1, 11)}


def test(n):
    def deco(fn):
        TESTS[n].append((fn.__name__, fn))
        return fn
    return deco


def rnd(*shape, seed=0, dtype=F64, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=F64) * scale).to(dtype)


def cast(args, dtype):
    return [a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]


def to64(args):
    return [d64(a) if isinstance(a, torch.Tensor) else a for a in args]


def check_out(got, exp, dtype=F64, device="cpu", what="output"):
    if isinstance(exp, (tuple, list)):
        assert isinstance(got, (tuple, list)), f"{what}: expected a tuple, got {type(got).__name__}"
        assert len(got) == len(exp), f"{what}: {len(got)} items, expected {len(exp)}"
        for i, (g, e) in enumerate(zip(got, exp)):
            check_out(g, e, dtype, device, f"{what}[{i}]")
        return
    assert isinstance(got, torch.Tensor), f"{what}: not a tensor ({type(got).__name__})"
    assert tuple(got.shape) == tuple(exp.shape), f"{what}: shape {tuple(got.shape)} != {tuple(exp.shape)}"
    assert got.device.type == device, f"{what}: device {got.device} != {device}"
    if exp.dtype == torch.bool:
        assert got.dtype == torch.bool, f"{what}: dtype {got.dtype} != bool"
        assert torch.equal(got.cpu(), exp), f"{what}: bool values differ"
        return
    assert got.dtype == dtype, f"{what}: dtype {got.dtype} != {dtype}"
    g, e = d64(got), d64(exp)
    assert torch.equal(torch.isnan(g), torch.isnan(e)), f"{what}: NaN pattern differs ({int(torch.isnan(g).sum())} NaN)"
    assert torch.equal(torch.isposinf(g), torch.isposinf(e)), f"{what}: +inf pattern differs"
    assert torch.equal(torch.isneginf(g), torch.isneginf(e)), f"{what}: -inf pattern differs"
    fin = torch.isfinite(e)
    if fin.any():
        scale = max(1.0, float(e[fin].abs().max()))
        err = float((g[fin] - e[fin]).abs().max())
        assert err <= TOL[dtype] * scale, f"{what}: max abs error {err:.3g} > {TOL[dtype] * scale:.3g}"


def call_cmp(f, reff, args, dtype=F64, **kw):
    a = cast(args, dtype)
    exp = reff(*to64(a), **kw)
    got = f(*a, **kw)
    check_out(got, exp, dtype)
    return got


def meta_call(f, args, **kw):
    a = [t.to("meta") if isinstance(t, torch.Tensor) else t for t in args]
    out = f(*a, **kw)
    for t in tree_leaves(out):
        if isinstance(t, torch.Tensor):
            assert t.device.type == "meta", f"output on {t.device}, inputs on meta"
    return out


def snapshot(args):
    return [(a.clone(), tuple(a.shape), a.stride()) if isinstance(a, torch.Tensor) else None for a in args]


def assert_unchanged(args, snap):
    for i, (a, s) in enumerate(zip(args, snap)):
        if s is None:
            continue
        c, shape, stride = s
        assert tuple(a.shape) == shape and a.stride() == stride, f"input {i} changed shape/stride"
        assert torch.equal(torch.nan_to_num(a.detach()), torch.nan_to_num(c)), f"input {i} values changed"


def unchanged_call(f, args, **kw):
    snap = snapshot(args)
    f(*args, **kw)
    assert_unchanged(args, snap)


def loss_of(out, seed=123):
    loss = None
    for j, o in enumerate(tree_leaves(out)):
        if not (isinstance(o, torch.Tensor) and o.is_floating_point()):
            continue
        w = rnd(*o.shape, seed=seed + j, dtype=o.dtype)
        term = (torch.where(torch.isfinite(o.detach()), o, torch.zeros_like(o)) * w).sum()
        loss = term if loss is None else loss + term
    return loss


def grads_of(fn, args, idx, **kw):
    xs = [a.clone().requires_grad_(True) if i in idx else a for i, a in enumerate(args)]
    out = fn(*xs, **kw)
    loss = loss_of(out)
    assert loss is not None and loss.requires_grad, "output carries no autograd history"
    gs = torch.autograd.grad(loss, [xs[i] for i in idx], allow_unused=True)
    return [torch.zeros_like(xs[i]) if g is None else g for i, g in zip(idx, gs)]


def grad_cmp(f, reff, args, idx, **kw):
    a = cast(args, F64)
    exp = grads_of(reff, a, idx, **kw)
    got = grads_of(f, a, idx, **kw)
    for i, (g, e) in enumerate(zip(got, exp)):
        assert torch.isfinite(g).all(), f"gradient {i} has NaN/inf"
        check_out(g, e, F64, what=f"gradient of input {idx[i]}")


class MaxNumel(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.max = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                self.max = max(self.max, t.numel())
        return out


def raises(exc, f, *a, **kw):
    try:
        f(*a, **kw)
    except exc:
        return
    except Exception as e:  # noqa
        raise AssertionError(f"raised {type(e).__name__} ({e}), expected {exc.__name__}")
    raise AssertionError(f"did not raise {exc.__name__}")
