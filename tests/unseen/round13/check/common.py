"""Shared helpers for the self-written checks (float64 reference, devices, gradients)."""
import importlib.util, math, traceback, uuid
import torch

DTYPES_LOW = [torch.float32, torch.float16, torch.bfloat16]
TOL = {torch.float64: 1e-9, torch.float32: 1e-4, torch.float16: 2e-2, torch.bfloat16: 8e-2}


def load(path):
    spec = importlib.util.spec_from_file_location("sub_" + uuid.uuid4().hex[:8], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


class Checker:
    def __init__(self):
        self.results = {}

    def check(self, name, fn):
        try:
            torch.manual_seed(0)
            fn()
            self.results[name] = (True, "")
        except Exception as e:  # noqa
            msg = f"{type(e).__name__}: {e}".split("\n")[0][:200]
            self.results[name] = (False, msg)


_CTR = [0]


def g(*shape, dtype=torch.float64, scale=1.0, seed=None):
    if seed is None:
        _CTR[0] += 1
        seed = 1000 + _CTR[0]
    gen = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=gen, dtype=torch.float64) * scale).to(dtype)


def assert_close(got, exp, tol=1e-9, what="value"):
    assert isinstance(got, torch.Tensor), f"{what}: not a tensor but {type(got)}"
    assert tuple(got.shape) == tuple(exp.shape), f"{what}: shape {tuple(got.shape)} != {tuple(exp.shape)}"
    gd, ed = got.detach().double(), exp.detach().double()
    assert torch.equal(torch.isnan(gd), torch.isnan(ed)), f"{what}: NaN pattern differs"
    ok = torch.allclose(gd, ed, rtol=tol, atol=tol, equal_nan=True)
    if not ok:
        err = (gd - ed).abs().nan_to_num(float("inf")).max().item()
        raise AssertionError(f"{what}: max abs error {err:.3g} > {tol}")


def assert_dtype_device(t, dtype, device, what="output"):
    assert isinstance(t, torch.Tensor), f"{what}: not a tensor"
    assert t.dtype == dtype, f"{what}: dtype {t.dtype} != {dtype}"
    assert t.device.type == torch.device(device).type, f"{what}: device {t.device} != {device}"


def snapshot(*ts):
    return [t.detach().clone() if isinstance(t, torch.Tensor) else t for t in ts]


def assert_unchanged(before, after, what="input"):
    for i, (b, a) in enumerate(zip(before, after)):
        if isinstance(b, torch.Tensor):
            assert a.shape == b.shape and torch.equal(torch.nan_to_num(a.detach()), torch.nan_to_num(b)), \
                f"{what} {i} was changed in place"


def grads(fn, inputs):
    """inputs: list of float64 tensors; returns list of grads of (out * fixed weights).sum()."""
    ins = [t.detach().clone().requires_grad_(True) for t in inputs]
    out = fn(*ins)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    loss = 0
    for j, o in enumerate(outs):
        w = g(*o.shape, seed=100 + j)
        loss = loss + (o.double() * w).sum()
    gs = torch.autograd.grad(loss, ins, allow_unused=True)
    return [gi if gi is not None else torch.zeros_like(t) * float("nan") for gi, t in zip(gs, ins)]


def assert_grads_close(fn, ref, inputs, tol=1e-8, what="grad"):
    gg = grads(fn, inputs)
    gr = grads(ref, inputs)
    for i, (a, b) in enumerate(zip(gg, gr)):
        assert torch.isfinite(a).all(), f"{what} {i}: non-finite (NaN/inf or no gradient)"
        assert_close(a, b, tol, f"{what} {i}")


def meta(*ts):
    return [t.to("meta") if isinstance(t, torch.Tensor) else t for t in ts]
