"""Independent checker for the round-8 corpus.

Run: /work/main/.venv/bin/python /work/round8/check/check_corpus.py [exerciseN ...] [-v]
Every honest file must pass every check; every wrong file must fail at least one.
"""
import contextlib
import importlib.util
import math
import pathlib
import re
import sys
import traceback
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import ref  # noqa: E402

STUBS = pathlib.Path("/work/main/exercises")
HONEST_LINES = [r"# expect: ✓|\bpass(es|ed)?\b|full marks|\bon par\b", "# reject: ✗", "# reject: ➜"]
D64 = torch.float64
LOW = (torch.float32, torch.float16, torch.bfloat16)
warnings.filterwarnings("ignore")


class Fail(AssertionError):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)


# ----------------------------------------------------------------------------- helpers

def gen(seed=0):
    return torch.Generator().manual_seed(seed)


def rnd(*shape, dtype=D64, seed=0, scale=1.0):
    return (torch.randn(*shape, generator=gen(seed), dtype=D64) * scale).to(dtype)


TOL = {D64: (1e-9, 1e-9), torch.float32: (1e-4, 1e-4), torch.float16: (3e-2, 3e-2), torch.bfloat16: (8e-2, 8e-2)}


def close(got, want, dtype, what):
    need(isinstance(got, torch.Tensor), f"{what}: not a tensor ({type(got).__name__})")
    need(got.dtype == dtype, f"{what}: dtype {got.dtype}, want {dtype}")
    need(tuple(got.shape) == tuple(want.shape), f"{what}: shape {tuple(got.shape)}, want {tuple(want.shape)}")
    g, w = got.detach().to(D64), want.detach().to(D64)
    need(torch.equal(torch.isnan(g), torch.isnan(w)), f"{what}: NaN where the reference has none (or the reverse)")
    fin = torch.isfinite(w)
    need(torch.equal(torch.isinf(g) & (g > 0), torch.isinf(w) & (w > 0)) and torch.equal(torch.isinf(g) & (g < 0), torch.isinf(w) & (w < 0)),
         f"{what}: infinities differ from the reference")
    atol, rtol = TOL[dtype]
    scale = w[fin].abs().max().item() if fin.any() else 1.0
    if dtype in (torch.float16, torch.bfloat16):
        atol = atol * max(scale, 1.0)
    if fin.any():
        err = (g[fin] - w[fin]).abs()
        bad = err > atol + rtol * w[fin].abs()
        need(not bad.any(), f"{what}: max abs error {err.max().item():.3g} ({dtype})")


def snapshot(objs):
    return [(o, o.detach().clone(), tuple(o.shape), o.dtype) for o in objs if isinstance(o, torch.Tensor)]


def unchanged(snap, what="input"):
    for o, c, shape, dt in snap:
        need(tuple(o.shape) == shape and o.dtype == dt, f"{what} changed shape/dtype (in-place edit)")
        if o.device.type != "meta":
            need(torch.equal(torch.nan_to_num(o.detach(), nan=7.0), torch.nan_to_num(c, nan=7.0)), f"{what} changed (in-place edit)")


def as_tuple(out):
    return out if isinstance(out, (tuple, list)) else (out,)


def grad_match(fn, reffn, inputs, what, pick=None):
    """Compare autograd gradients (float64) of sum(out * r) wrt inputs against the reference."""
    ins = [t.detach().clone().requires_grad_(True) for t in inputs]
    rins = [t.detach().clone().requires_grad_(True) for t in inputs]
    out, rout = as_tuple(fn(*ins)), as_tuple(reffn(*rins))
    if pick is not None:
        out, rout = [out[i] for i in pick], [rout[i] for i in pick]
    loss = 0
    rloss = 0
    for n, (o, r) in enumerate(zip(out, rout)):
        need(isinstance(o, torch.Tensor) and o.shape == r.shape, f"{what}: output shape for gradients")
        wts = rnd(*r.shape, seed=100 + n)
        loss = loss + (o.masked_fill(~torch.isfinite(r.detach()), 0) * wts).sum()
        rloss = rloss + (r.masked_fill(~torch.isfinite(r.detach()), 0) * wts).sum()
    need(isinstance(loss, torch.Tensor) and loss.requires_grad, f"{what}: output carries no gradient (detached?)")
    gs = torch.autograd.grad(loss, ins, allow_unused=True)
    rgs = torch.autograd.grad(rloss, rins, allow_unused=True)
    for i, (g, rg) in enumerate(zip(gs, rgs)):
        rg = torch.zeros_like(rins[i]) if rg is None else rg
        if g is None:
            need(rg.abs().max().item() == 0, f"{what}: no gradient reaches input {i} (detached / no_grad / .data / .item?)")
            continue
        need(torch.isfinite(g).all(), f"{what}: non-finite gradient wrt input {i}")
        err = (g - rg).abs().max().item()
        need(err <= 1e-7 * (1 + rg.abs().max().item()), f"{what}: gradient wrt input {i} differs from the reference by {err:.3g}")


@contextlib.contextmanager
def banned(names):
    """Make the given (object, attr) callables raise while student code runs."""
    saved = []

    def make(label):
        def f(*a, **k):
            raise Fail(f"uses the banned {label}")
        return f

    for obj, attr in names:
        if hasattr(obj, attr):
            saved.append((obj, attr, getattr(obj, attr)))
            setattr(obj, attr, make(attr))
    try:
        yield
    finally:
        for obj, attr, v in saved:
            setattr(obj, attr, v)


SOFTMAX_BANS = [(torch, "softmax"), (torch, "log_softmax"), (F, "softmax"), (F, "log_softmax"), (torch.Tensor, "softmax"),
                (torch.Tensor, "log_softmax"), (torch.special, "softmax"), (torch.special, "log_softmax"), (torch, "_softmax")]
FUSED_BANS = [(F, "scaled_dot_product_attention"), (nn, "MultiheadAttention")]


class NoDeviceMix(torch.utils._python_dispatch.TorchDispatchMode):
    """On 'meta' (our stand-in for a GPU), refuse an op that mixes meta tensors with CPU tensors that are
    not 0-d: CUDA would refuse it too (meta itself is more permissive)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        flat = torch.utils._pytree.tree_leaves((args, kwargs or {}))
        tens = [a for a in flat if isinstance(a, torch.Tensor)]
        if any(t.device.type == "meta" for t in tens) and any(t.device.type == "cpu" and t.dim() > 0 for t in tens):
            raise Fail(f"{func}: mixes tensors on the input's device (meta, standing in for a GPU) with CPU tensors")
        return func(*args, **(kwargs or {}))


class MaxNumel(torch.utils._python_dispatch.TorchDispatchMode):
    """Record the largest tensor any op produces."""

    def __init__(self):
        super().__init__()
        self.max = 0
        self.shape = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.numel() > self.max:
                self.max, self.shape = o.numel(), tuple(o.shape)
        return out


# ----------------------------------------------------------------------------- generic function check

def check_fn(fn, reffn, make_inputs, what, dtypes=(D64,) + LOW, grad=True, meta=True, pick=None):
    """make_inputs(dtype, device) -> list of args (tensors and others). Checks values, dtype,
    inputs unchanged, gradients (float64) and device (meta)."""
    for dt in dtypes:
        args = make_inputs(dt, "cpu")
        snap = snapshot(args)
        out = as_tuple(fn(*args))
        unchanged(snap, f"{what}: an input")
        rargs = [a.detach().to(D64) if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]
        rout = as_tuple(reffn(*rargs))
        need(len(out) == len(rout), f"{what}: returns {len(out)} values, want {len(rout)}")
        for i, (o, r) in enumerate(zip(out, rout)):
            close(o, r, dt, f"{what} output {i}")
    if grad:
        args = make_inputs(D64, "cpu")
        tens = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.is_floating_point()]

        def wrap(f):
            def g(*ts):
                full = list(args)
                for i, t in zip(tens, ts):
                    full[i] = t
                return f(*full)
            return g
        grad_match(wrap(fn), wrap(reffn), [args[i] for i in tens], what, pick)
    if meta:
        args = make_inputs(torch.float32, "meta")
        with NoDeviceMix():
            out = as_tuple(fn(*args))
        rout = as_tuple(reffn(*args))
        for i, (o, r) in enumerate(zip(out, rout)):
            need(isinstance(o, torch.Tensor) and o.device.type == "meta", f"{what} output {i}: not on the inputs' device (meta)")
            need(tuple(o.shape) == tuple(r.shape), f"{what} output {i} on meta: shape {tuple(o.shape)}")


# ----------------------------------------------------------------------------- exercise tests

def t_ex1(m):
    tests = []
    for lead in [(), (2,), (2, 3)]:
        for (L, dm, dk, dv) in [(5, 6, 3, 4), (1, 4, 4, 4), (3, 4, 4, 2)]:
            def mk(dt, dev, lead=lead, L=L, dm=dm, dk=dk, dv=dv):
                return [rnd(*lead, L, dm, dtype=dt, seed=1).to(dev), rnd(dm, dk, dtype=dt, seed=2).to(dev),
                        rnd(dm, dk, dtype=dt, seed=3).to(dev), rnd(dm, dv, dtype=dt, seed=4).to(dev)]
            tests.append((f"project lead={lead} L={L} dm={dm}", lambda mk=mk: check_fn(m.project, ref.project, mk, "project")))
        for (L, dm, d) in [(5, 6, 3), (1, 4, 4), (3, 2, 5)]:
            def mk(dt, dev, lead=lead, L=L, dm=dm, d=d):
                return [rnd(*lead, L, dm, dtype=dt, seed=5).to(dev), rnd(dm, 3 * d, dtype=dt, seed=6).to(dev)]
            tests.append((f"fused lead={lead} L={L} dm={dm} d={d}", lambda mk=mk: check_fn(m.fused_project, ref.fused_project, mk, "fused_project")))
    return tests


def t_ex2(m):
    tests = []
    for lead in [(), (2,), (2, 3), (1,)]:
        for (Lq, Lk, d) in [(4, 6, 5), (3, 3, 7), (1, 1, 2), (1, 5, 3), (6, 2, 1)]:
            def mk(dt, dev, lead=lead, Lq=Lq, Lk=Lk, d=d):
                return [rnd(*lead, Lq, d, dtype=dt, seed=7).to(dev), rnd(*lead, Lk, d, dtype=dt, seed=8).to(dev)]
            tests.append((f"scores lead={lead} {Lq}x{Lk} d={d}", lambda mk=mk: check_fn(m.attention_scores, ref.scores, mk, "attention_scores")))
    return tests


def t_ex3(m):
    tests = []
    for lead in [(), (2,), (2, 3)]:
        for (Lq, Lk, d) in [(4, 6, 5), (3, 3, 7), (1, 1, 16), (2, 5, 3), (4, 4, 4)]:
            def mk(dt, dev, lead=lead, Lq=Lq, Lk=Lk, d=d):
                return [rnd(*lead, Lq, d, dtype=dt, seed=9).to(dev), rnd(*lead, Lk, d, dtype=dt, seed=10).to(dev)]
            tests.append((f"scaled_scores lead={lead} {Lq}x{Lk} d={d}", lambda mk=mk: check_fn(m.scaled_scores, ref.scaled_scores, mk, "scaled_scores")))
            def mk2(dt, dev, lead=lead, Lq=Lq, Lk=Lk, d=d):
                return [rnd(*lead, Lq, Lk, dtype=dt, seed=11, scale=3).to(dev), d]
            tests.append((f"scale_scores lead={lead} {Lq}x{Lk} d_k={d}", lambda mk2=mk2: check_fn(m.scale_scores, ref.scale_scores, mk2, "scale_scores")))
    def new_tensor():
        s = rnd(3, 4)
        out = m.scale_scores(s, 4)
        need(out is not s and out.data_ptr() != s.data_ptr(), "scale_scores: does not return a new tensor")
    tests.append(("scale_scores returns a new tensor", new_tensor))
    return tests

# ----------------------------------------------------------------------------- header and stub

def check_header(path, n, kind):
    lines = path.read_text().splitlines()
    errs = []
    m = re.fullmatch(r"# lumen-unseen: exercise=(\d+) kind=(wrong|honest)", lines[0])
    if not m or int(m.group(1)) != n or m.group(2) != kind:
        errs.append("first line is not '# lumen-unseen: exercise=N kind=K' matching the file")
    head = []
    for line in lines[1:]:
        if not line.startswith("# "):
            break
        head.append(line)
    if kind == "honest":
        if not (head and head[0].startswith("# method: ") and len(head[0]) > 12):
            errs.append("honest file: second line must be '# method: ...'")
        if head[1:] != HONEST_LINES:
            errs.append("honest file: expect/reject lines are not the prescribed ones")
        return errs
    if not (len(head) >= 3 and head[0].startswith("# mistake: ") and head[1].startswith("# ideal: ")):
        errs.append("wrong file: needs '# mistake:' then '# ideal:'")
        return errs
    ideal = head[1][len("# ideal: "):]
    exp = [h[len("# expect: "):] for h in head[2:] if h.startswith("# expect: ")]
    rej = [h[len("# reject: "):] for h in head[2:] if h.startswith("# reject: ")]
    if len(exp) + len(rej) != len(head) - 2:
        errs.append("wrong file: unknown header line")
    if not 1 <= len(exp) <= 3 or len(rej) > 2:
        errs.append(f"wrong file: {len(exp)} expect and {len(rej)} reject lines")
    for e in exp:
        try:
            if not re.search(e, ideal, re.I):
                errs.append(f"ideal does not match expect {e!r}")
        except re.error as ex:
            errs.append(f"bad regex {e!r}: {ex}")
    for r in rej:
        try:
            if re.search(r, ideal, re.I):
                errs.append(f"ideal matches reject {r!r}")
        except re.error as ex:
            errs.append(f"bad regex {r!r}: {ex}")
    return errs


def check_stub(path, n):
    (stub,) = STUBS.glob(f"exercise{n}_*.py")
    if path.name.split("_", 1)[0] not in ("wrong", "honest"):
        return ["file name must start with wrong_ or honest_"]
    want = [l for l in stub.read_text().splitlines() if "raise NotImplementedError(" not in l]
    have = path.read_text().splitlines()
    j = 0
    for line in have:
        if j < len(want) and line == want[j]:
            j += 1
    return [] if j == len(want) else [f"stub line not kept: {want[j]!r}"]


def load(path):
    spec = importlib.util.spec_from_file_location(f"corpus_{path.parent.name}_{path.stem}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BANS = {5: SOFTMAX_BANS + FUSED_BANS, 6: FUSED_BANS, 7: FUSED_BANS, 8: FUSED_BANS, 10: SOFTMAX_BANS + FUSED_BANS}


def run_file(path, n, kind, verbose=False):
    problems = check_header(path, n, kind) + check_stub(path, n)
    fails = []
    try:
        mod = load(path)
        tests = globals()[f"t_ex{n}"](mod)
    except Exception as e:  # noqa: BLE001
        return problems + [f"import or test setup failed: {type(e).__name__}: {e}"], []
    for name, t in tests:
        try:
            torch.manual_seed(1234)
            with banned(BANS.get(n, [])), torch.random.fork_rng():
                torch.manual_seed(1234)
                t()
        except Fail as e:
            fails.append(f"{name}: {e}")
        except Exception as e:  # noqa: BLE001
            fails.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
            if verbose:
                traceback.print_exc()
    return problems, fails


def main(argv):
    verbose = "-v" in argv
    only = [a for a in argv if not a.startswith("-")]
    root = ROOT / "check" / "control" if "--control" in argv else ROOT
    stats = {"honest": [0, 0], "wrong": [0, 0]}
    bad = []
    for n in range(1, 11):
        d = root / f"exercise{n}"
        if not d.exists() or (only and f"exercise{n}" not in only):
            continue
        for path in sorted(d.glob("*.py")):
            kind = path.name.split("_", 1)[0]
            problems, fails = run_file(path, n, kind, verbose)
            stats[kind][1] += 1
            if kind == "honest":
                ok = not problems and not fails
                print(f"{'PASS' if ok else 'BAD '} exercise{n}/{path.name}: {'all checks pass' if ok else ''}")
                for p in problems + fails[:8]:
                    print(f"       {p}")
            else:
                ok = not problems and bool(fails)
                print(f"{'FAIL' if ok else 'BAD '} exercise{n}/{path.name}: {len(fails)} failing check(s)")
                for p in problems:
                    print(f"       header/stub: {p}")
                for p in fails[: (20 if verbose else 2)]:
                    print(f"       {p}")
                if not fails:
                    print("       passes every check: the mistake is not caught")
            stats[kind][0] += ok
            if not ok:
                bad.append(f"exercise{n}/{path.name}")
    h, w = stats["honest"], stats["wrong"]
    print(f"\nSummary: honest pass all checks: {h[0]}/{h[1]}; wrong fail at least one check: {w[0]}/{w[1]}")
    if bad:
        print("Problem files: " + ", ".join(bad))
    return 0 if not bad else 1



def t_ex4(m):
    tests = []

    def causal(L, dev):
        got = m.causal_mask(L, device=dev) if dev is not None else m.causal_mask(L)
        want = ref.causal_mask(L)
        need(isinstance(got, torch.Tensor) and got.dtype == torch.bool, f"causal_mask({L}): dtype {getattr(got, 'dtype', None)}, want bool")
        need(tuple(got.shape) == (L, L), f"causal_mask({L}): shape {tuple(got.shape)}")
        need(got.device.type == (dev or "cpu"), f"causal_mask({L}, device={dev}): on {got.device}")
        if dev != "meta":
            need(torch.equal(got.cpu(), want), f"causal_mask({L}): wrong entries")
    for L in [1, 2, 3, 5, 8]:
        tests.append((f"causal_mask L={L}", lambda L=L: causal(L, None)))
    tests.append(("causal_mask on meta", lambda: causal(4, "meta")))

    for shape, mshape in [((4, 6), (4, 6)), ((2, 3, 5), (2, 1, 5)), ((2, 2, 3, 3), (3, 3)), ((1, 1), (1, 1)), ((2, 4, 4), (4, 4))]:
        def mk(dt, dev, shape=shape, mshape=mshape):
            s = rnd(*shape, dtype=dt, seed=12).to(dev)
            mk_ = torch.rand(*mshape, generator=gen(13)) > 0.4
            mk_.view(-1)[0] = False
            if len(mshape) >= 2:
                mk_[..., 0, :] = False  # a fully masked row
            return [s, mk_.to(dev)]
        tests.append((f"apply_mask {shape} mask {mshape}", lambda mk=mk: check_fn(m.apply_mask, ref.apply_mask, mk, "apply_mask")))

    def apply_new():
        s = rnd(3, 3)
        out = m.apply_mask(s, ref.causal_mask(3))
        need(out.data_ptr() != s.data_ptr(), "apply_mask: returns the input tensor itself, not a new one")
    tests.append(("apply_mask new tensor", apply_new))

    def pad(lengths, L, dev="cpu"):
        lt = torch.tensor(lengths, dtype=torch.long, device=dev)
        snap = snapshot([lt])
        got = m.padding_mask(lt, L)
        unchanged(snap, "padding_mask: lengths")
        need(isinstance(got, torch.Tensor) and got.dtype == torch.bool, "padding_mask: not a bool tensor")
        need(tuple(got.shape) == (len(lengths), 1, L), f"padding_mask: shape {tuple(got.shape)}, want {(len(lengths), 1, L)}")
        need(got.device.type == dev, f"padding_mask: on {got.device}, want lengths' device {dev}")
        if dev != "meta":
            need(torch.equal(got, ref.padding_mask(lt, L)), f"padding_mask({lengths}, {L}): wrong entries")
    for lengths, L in [([3, 1, 4], 4), ([0, 2], 5), ([1], 1), ([2, 2], 6), ([5, 0, 3], 5)]:
        tests.append((f"padding_mask {lengths} L={L}", lambda lengths=lengths, L=L: pad(lengths, L)))
    tests.append(("padding_mask on meta", lambda: pad([2, 3], 4, "meta")))
    return tests


def t_ex5(m):
    tests = []

    def sm_input(shape, dt, dev, kind):
        x = rnd(*shape, dtype=D64, seed=14, scale=3)
        if kind in ("masked", "huge"):
            drop = torch.rand(*shape, generator=gen(15)) < 0.3
            x = x.masked_fill(drop, float("-inf"))
            x.view(-1, shape[-1])[0] = float("-inf")  # a fully -inf slice along the last dim
        if kind == "huge":
            x = x * 3000  # entries of about +-1e4
            x.view(-1, shape[-1])[-1] = -1e4 + torch.arange(shape[-1], dtype=D64)  # a slice far below every other
        return x.to(dt).to(dev)

    for shape in [(5,), (3, 4), (4, 4), (2, 3, 6), (1, 1)]:
        for kind in ["plain", "masked", "huge"]:
            for dim in sorted({-1, 0, len(shape) - 1}):
                def mk(dt, dev, shape=shape, kind=kind, dim=dim):
                    return [sm_input(shape, dt, dev, kind), dim]
                # huge values overflow float16; low precision only for plain/masked
                dts = (D64, torch.float32) + ((torch.float16, torch.bfloat16) if kind != "huge" else (torch.bfloat16,))
                if kind == "masked" and dim != len(shape) - 1 and dim != -1:
                    continue
                tests.append((f"softmax {shape} {kind} dim={dim}", lambda mk=mk, dts=dts: check_fn(m.softmax, ref.softmax, mk, "softmax", dtypes=dts)))

    def all_neg_inf_rows():
        x = torch.full((3, 5), float("-inf"), dtype=D64)
        x[1, 2] = 0.5
        out = m.softmax(x, dim=-1)
        need(torch.isfinite(out).all() and out[0].abs().sum() == 0 and out[2].abs().sum() == 0, "softmax: an all -inf row is not zeros")
        xg = x.clone().requires_grad_(True)
        g, = torch.autograd.grad((m.softmax(xg, dim=-1) * rnd(3, 5, seed=3)).sum(), xg)
        need(torch.isfinite(g).all(), "softmax: non-finite gradient for an all -inf row")
    tests.append(("softmax all -inf rows", all_neg_inf_rows))

    for lead in [(), (2,), (2, 3)]:
        for (Lq, Lk, dk, dv) in [(4, 6, 5, 3), (3, 3, 7, 7), (1, 1, 2, 4), (5, 2, 3, 2)]:
            for mkind in [None, "rand", "pad", "causal"]:
                def mk(dt, dev, lead=lead, Lq=Lq, Lk=Lk, dk=dk, dv=dv, mkind=mkind):
                    q = rnd(*lead, Lq, dk, dtype=dt, seed=16).to(dev)
                    k = rnd(*lead, Lk, dk, dtype=dt, seed=17).to(dev)
                    v = rnd(*lead, Lk, dv, dtype=dt, seed=18).to(dev)
                    if mkind is None:
                        return [q, k, v]
                    if mkind == "rand":
                        mask = torch.rand(*lead, Lq, Lk, generator=gen(19)) > 0.4
                        mask[..., 0, :] = False  # a query that sees nothing
                    elif mkind == "pad":
                        B = lead[0] if lead else 1
                        lengths = torch.arange(B) % (Lk + 1)
                        mask = (torch.arange(Lk)[None] < lengths[:, None])
                        mask = mask.view(B, *([1] * max(len(lead) - 1, 0)), 1, Lk) if lead else mask.view(1, Lk)
                    else:
                        mask = torch.arange(Lq)[:, None] >= torch.arange(Lk)[None]
                    return [q, k, v, mask.to(dev)]
                tests.append((f"sdpa lead={lead} {Lq}x{Lk} dk={dk} mask={mkind}", lambda mk=mk: check_fn(m.scaled_dot_product_attention, ref.sdpa, mk, "scaled_dot_product_attention")))
    return tests


def check_module(ctor, shapes, reff, x_shape, mask_fn, what, dtypes=(D64,) + LOW, grad=True, meta=True, call=None):
    """ctor() -> student module; shapes: state-dict name -> shape; reff(p, x, mask) -> reference output;
    mask_fn(device) -> mask or None (None: forward(x) is called without a mask)."""
    call = call or (lambda mod, x, mask: mod(x) if mask is None else mod(x, mask))
    p = {name: rnd(*shape, seed=30 + i, scale=0.6) for i, (name, shape) in enumerate(shapes.items())}
    mod = ctor()
    got = sorted(k for k, _ in mod.state_dict().items())
    need(got == sorted(shapes), f"{what}: state dict keys {got}, want {sorted(shapes)}")
    for k, t in mod.state_dict().items():
        need(tuple(t.shape) == tuple(shapes[k]), f"{what}: {k} has shape {tuple(t.shape)}, want {tuple(shapes[k])}")
    for dt in dtypes:
        mod = ctor()
        mod.load_state_dict({k: v.to(torch.float32) for k, v in p.items()})
        mod = mod.to(dt)
        mod.load_state_dict({k: v.to(dt) for k, v in p.items()})
        x = rnd(*x_shape, dtype=dt, seed=40)
        mask = mask_fn("cpu")
        snap = snapshot([x] + ([mask] if mask is not None else []))
        with torch.no_grad() if dt != D64 else contextlib.nullcontext():
            out = call(mod, x, mask)
        unchanged(snap, f"{what}: an input")
        rp = {k: v.to(dt).to(D64) for k, v in p.items()}
        close(out, reff(rp, x.to(D64), mask), dt, f"{what} output")
    if grad:
        mod = ctor().to(D64)
        mod.load_state_dict(p)
        x = rnd(*x_shape, seed=40).requires_grad_(True)
        mask = mask_fn("cpu")
        out = call(mod, x, mask)
        wts = rnd(*out.shape, seed=41)
        need(out.requires_grad, f"{what}: output carries no gradient")
        names = [n for n, _ in mod.named_parameters()]
        params = [t for _, t in mod.named_parameters()]
        gs = torch.autograd.grad((out * wts).sum(), [x] + params, allow_unused=True)
        rp = {k: v.clone().requires_grad_(True) for k, v in p.items()}
        rx = x.detach().clone().requires_grad_(True)
        rgs = torch.autograd.grad((reff(rp, rx, mask) * wts).sum(), [rx] + [rp[n] for n in names], allow_unused=True)
        for n, g, rg in zip(["x"] + names, gs, rgs):
            rg = torch.zeros(()) if rg is None else rg
            need(g is not None or rg.abs().max() == 0, f"{what}: no gradient reaches {n}")
            if g is not None:
                need(torch.isfinite(g).all(), f"{what}: non-finite gradient wrt {n}")
                err = (g - rg).abs().max().item()
                need(err <= 1e-7 * (1 + rg.abs().max().item()), f"{what}: gradient wrt {n} differs by {err:.3g}")
    if meta:
        mod = ctor().to("meta")
        x = torch.empty(*x_shape, device="meta")
        mask = mask_fn("meta")
        with NoDeviceMix():
            out = call(mod, x, mask)
        need(out.device.type == "meta", f"{what}: output not on the input's device (meta)")
        need(tuple(out.shape) == tuple(x_shape), f"{what}: output shape on meta {tuple(out.shape)}")


def t_ex6(m):
    tests = []
    for (B, L, D, H) in [(2, 5, 12, 3), (1, 1, 4, 4), (3, 4, 6, 1), (2, 3, 8, 2)]:
        def mk(dt, dev, B=B, L=L, D=D, H=H):
            return [rnd(B, L, D, dtype=dt, seed=20).to(dev), H]
        tests.append((f"split_heads {(B, L, D)} H={H}", lambda mk=mk: check_fn(m.split_heads, ref.split_heads, mk, "split_heads")))
        for contig in (True, False):
            def mk2(dt, dev, B=B, L=L, D=D, H=H, contig=contig):
                if contig:
                    return [rnd(B, H, L, D // H, dtype=dt, seed=21).to(dev)]
                return [rnd(B, L, H, D // H, dtype=dt, seed=21).to(dev).transpose(1, 2)]
            tests.append((f"merge_heads {(B, H, L, D // H)} contiguous={contig}", lambda mk2=mk2: check_fn(m.merge_heads, ref.merge_heads, mk2, "merge_heads")))

    def children():
        mod = m.MultiHeadAttention(8, 2)
        names = sorted(n for n, _ in mod.named_children())
        need(names == ["out", "qkv"], f"MultiHeadAttention: submodules {names}, want ['out', 'qkv']")
        need(isinstance(mod.qkv, nn.Linear) and isinstance(mod.out, nn.Linear), "MultiHeadAttention: qkv/out are not nn.Linear")
    tests.append(("MHA submodules", children))

    for (B, L, D, H, bias) in [(2, 5, 12, 3, True), (1, 1, 4, 2, True), (2, 4, 8, 1, False), (3, 6, 8, 4, False)]:
        shapes = {"qkv.weight": (3 * D, D), "out.weight": (D, D)}
        if bias:
            shapes.update({"qkv.bias": (3 * D,), "out.bias": (D,)})
        lengths = torch.arange(B) % (L + 1)
        lengths[0] = 0  # a sequence that is all padding
        masks = {
            "none": lambda dev: None,
            "padding": lambda dev, lengths=lengths, L=L, B=B: (torch.arange(L)[None] < lengths[:, None]).view(B, 1, 1, L).to(dev),
            "full (B,H,L,L)": lambda dev, B=B, H=H, L=L: (torch.rand(B, H, L, L, generator=gen(22)) > 0.3).to(dev),
            "all-true (L,L)": lambda dev, L=L: torch.ones(L, L, dtype=torch.bool, device=dev),
        }
        for mname, mfn in masks.items():
            def run(B=B, L=L, D=D, H=H, bias=bias, shapes=shapes, mfn=mfn, mname=mname):
                check_module(lambda: m.MultiHeadAttention(D, H, bias=bias), shapes,
                             lambda p, x, mask: ref.mha(p, x, H, mask), (B, L, D), mfn, f"MultiHeadAttention mask={mname}")
            tests.append((f"MHA B={B} L={L} D={D} H={H} bias={bias} mask={mname}", run))
    return tests


def t_ex7(m):
    tests = []
    for (B, Hkv, L, d, n) in [(2, 2, 3, 4, 3), (1, 1, 1, 2, 4), (2, 3, 4, 5, 1), (1, 4, 2, 3, 2)]:
        def mk(dt, dev, B=B, Hkv=Hkv, L=L, d=d, n=n):
            return [rnd(B, Hkv, L, d, dtype=dt, seed=23).to(dev), n]
        tests.append((f"repeat_kv {(B, Hkv, L, d)} n_rep={n}", lambda mk=mk: check_fn(m.repeat_kv, ref.repeat_kv, mk, "repeat_kv")))

    def order():
        x = torch.arange(2.0).view(1, 2, 1, 1)
        got = m.repeat_kv(x, 3).flatten().tolist()
        need(got == [0, 0, 0, 1, 1, 1], f"repeat_kv: head order {got}, want [0, 0, 0, 1, 1, 1]")
    tests.append(("repeat_kv order", order))

    def children():
        mod = m.GroupedQueryAttention(8, 4, 2)
        names = sorted(n for n, _ in mod.named_children())
        need(names == ["k_proj", "o_proj", "q_proj", "v_proj"], f"GroupedQueryAttention: submodules {names}")
    tests.append(("GQA submodules", children))

    for (B, L, D, H, Hkv) in [(2, 5, 12, 6, 2), (1, 1, 8, 4, 1), (2, 4, 8, 2, 2), (3, 3, 8, 4, 1), (2, 6, 16, 8, 4)]:
        dh = D // H
        shapes = {"q_proj.weight": (H * dh, D), "k_proj.weight": (Hkv * dh, D), "v_proj.weight": (Hkv * dh, D), "o_proj.weight": (D, H * dh)}
        lengths = torch.arange(B) % (L + 1)
        lengths[0] = 0
        masks = {
            "none": lambda dev: None,
            "padding": lambda dev, lengths=lengths, L=L, B=B: (torch.arange(L)[None] < lengths[:, None]).view(B, 1, 1, L).to(dev),
            "full (B,H,L,L)": lambda dev, B=B, H=H, L=L: (torch.rand(B, H, L, L, generator=gen(24)) > 0.3).to(dev),
            "all-true (L,L)": lambda dev, L=L: torch.ones(L, L, dtype=torch.bool, device=dev),
        }
        for mname, mfn in masks.items():
            def run(B=B, L=L, D=D, H=H, Hkv=Hkv, shapes=shapes, mfn=mfn, mname=mname):
                check_module(lambda: m.GroupedQueryAttention(D, H, Hkv), shapes,
                             lambda p, x, mask: ref.gqa(p, x, H, Hkv, mask), (B, L, D), mfn, f"GroupedQueryAttention mask={mname}")
            tests.append((f"GQA B={B} L={L} D={D} H={H} Hkv={Hkv} mask={mname}", run))
    return tests


def t_ex8(m):
    tests = []

    def bytes_():
        cases = [((32, 32, 128, 4096), {}), ((2, 3, 5, 7), {"batch_size": 4}), ((1, 1, 1, 1), {"bytes_per_value": 4}),
                 ((3, 8, 64, 100), {"batch_size": 2, "bytes_per_value": 1})]
        for a, kw in cases:
            got = m.kv_cache_bytes(*a, **kw)
            want = ref.kv_cache_bytes(*a, **kw)
            need(type(got) is int, f"kv_cache_bytes{a}: returns {type(got).__name__}, want int")
            need(got == want, f"kv_cache_bytes{a} {kw}: {got}, want {want}")
    tests.append(("kv_cache_bytes", bytes_))

    def cache_basic(dt=D64, dev="cpu"):
        B, H, d, N = 2, 3, 4, 6
        c = m.KVCache(B, H, d, N, dtype=dt, device=dev)
        need(len(c) == 0, "KVCache: a new cache is not empty")
        ks = [rnd(B, H, t, d, dtype=dt, seed=50 + i).to(dev) for i, t in enumerate([2, 1, 3])]
        vs = [rnd(B, H, t, d, dtype=dt, seed=60 + i).to(dev) for i, t in enumerate([2, 1, 3])]
        ptr = None
        for i, (k, v) in enumerate(zip(ks, vs)):
            snap = snapshot([k, v])
            K, V = c.update(k, v)
            unchanged(snap, "KVCache.update: k or v")
            T = sum(t.shape[2] for t in ks[: i + 1])
            need(len(c) == T, f"KVCache: len {len(c)} after {T} tokens")
            need(tuple(K.shape) == (B, H, T, d) and tuple(V.shape) == (B, H, T, d), f"KVCache.update: returns {tuple(K.shape)}, want {(B, H, T, d)}")
            need(K.dtype == dt and V.dtype == dt and K.device.type == dev, f"KVCache.update: dtype/device {K.dtype} {K.device}")
            if dev != "meta":
                need(torch.equal(K, torch.cat(ks[: i + 1], 2)) and torch.equal(V, torch.cat(vs[: i + 1], 2)), "KVCache.update: wrong keys/values returned")
                if ptr is None:
                    ptr = K.data_ptr()
                need(K.data_ptr() == ptr, "KVCache.update: keys are not views of the storage allocated once (re-allocated or concatenated)")
        need(len(c) == N, "KVCache: not full")
        return c, ptr
    tests.append(("KVCache fill to max_len", cache_basic))
    tests.append(("KVCache float16", lambda: cache_basic(torch.float16)))
    tests.append(("KVCache bfloat16", lambda: cache_basic(torch.bfloat16)))
    tests.append(("KVCache float32", lambda: cache_basic(torch.float32)))
    tests.append(("KVCache on meta", lambda: cache_basic(torch.float32, "meta")))

    def overflow():
        c = m.KVCache(1, 2, 3, 5, dtype=D64)
        k1, v1 = rnd(1, 2, 3, 3, seed=1), rnd(1, 2, 3, 3, seed=2)
        c.update(k1, v1)
        try:
            c.update(rnd(1, 2, 3, 3, seed=3), rnd(1, 2, 3, 3, seed=4))
        except ValueError:
            pass
        else:
            raise Fail("KVCache.update: appending past max_len does not raise ValueError")
        need(len(c) == 3, f"KVCache: after a refused update len is {len(c)}, want 3")
        K, V = c.update(rnd(1, 2, 2, 3, seed=5), rnd(1, 2, 2, 3, seed=6))
        need(torch.equal(K[:, :, :3], k1) and torch.equal(V[:, :, :3], v1), "KVCache: a refused update changed the cache")
        need(len(c) == 5, "KVCache: cannot fill exactly max_len after a refused update")
    tests.append(("KVCache overflow", overflow))

    def zeros_and_reset():
        c = m.KVCache(1, 1, 2, 4, dtype=D64)
        c.update(torch.zeros(1, 1, 2, 2, dtype=D64), torch.zeros(1, 1, 2, 2, dtype=D64))
        need(len(c) == 2, f"KVCache: two tokens whose keys are zeros give len {len(c)}")
        K, _ = c.update(torch.ones(1, 1, 1, 2, dtype=D64), torch.ones(1, 1, 1, 2, dtype=D64))
        need(K.shape[2] == 3 and K[0, 0, 2].tolist() == [1.0, 1.0], "KVCache: wrong position after zero-key tokens")
        p0 = K.data_ptr()
        c.reset()
        need(len(c) == 0, "KVCache.reset: len is not 0")
        K, _ = c.update(2 * torch.ones(1, 1, 4, 2, dtype=D64), torch.ones(1, 1, 4, 2, dtype=D64))
        need(K.shape[2] == 4 and bool((K == 2).all()), "KVCache after reset: wrong keys")
        need(K.data_ptr() == p0, "KVCache.reset: the storage was not kept")
    tests.append(("KVCache zero keys and reset", zeros_and_reset))

    for (B, L, D, H, Hkv) in [(2, 5, 12, 6, 2), (1, 1, 8, 4, 1), (2, 4, 8, 2, 2), (2, 6, 16, 8, 4)]:
        dh = D // H
        shapes = {"q_proj.weight": (H * dh, D), "k_proj.weight": (Hkv * dh, D), "v_proj.weight": (Hkv * dh, D), "o_proj.weight": (D, H * dh)}
        def run_none(B=B, L=L, D=D, H=H, Hkv=Hkv, shapes=shapes):
            check_module(lambda: m.CachedGroupedQueryAttention(D, H, Hkv), shapes, lambda p, x, mask: ref.gqa(p, x, H, Hkv),
                         (B, L, D), lambda dev: None, "CachedGQA cache=None", call=lambda mod, x, mask: mod(x))
        tests.append((f"CachedGQA no cache B={B} L={L} H={H} Hkv={Hkv}", run_none))

        def run_cache(B=B, L=L, D=D, H=H, Hkv=Hkv, shapes=shapes, dh=dh):
            check_module(lambda: m.CachedGroupedQueryAttention(D, H, Hkv), shapes, lambda p, x, mask: ref.gqa(p, x, H, Hkv),
                         (B, L, D), lambda dev: None, "CachedGQA one chunk into an empty cache",
                         call=lambda mod, x, mask: mod(x, m.KVCache(B, Hkv, dh, L + 3, dtype=x.dtype, device=x.device)))
        tests.append((f"CachedGQA empty cache B={B} L={L} H={H} Hkv={Hkv}", run_cache))

        def run_chunks(B=B, D=D, H=H, Hkv=Hkv, shapes=shapes, dh=dh):
            p = {n: rnd(*s, seed=70 + i, scale=0.6) for i, (n, s) in enumerate(shapes.items())}
            for dt in (D64, torch.float32, torch.bfloat16):
                mod = m.CachedGroupedQueryAttention(D, H, Hkv).to(dt)
                mod.load_state_dict({k: v.to(dt) for k, v in p.items()})
                x = rnd(B, 9, D, seed=71, dtype=dt)
                cache = m.KVCache(B, Hkv, dh, 9, dtype=dt)
                outs, s = [], 0
                with torch.no_grad():
                    for t in (3, 1, 5):
                        outs.append(mod(x[:, s:s + t], cache))
                        s += t
                need(len(cache) == 9, f"CachedGQA: cache holds {len(cache)} tokens after 9")
                rp = {k: v.to(dt).to(D64) for k, v in p.items()}
                close(torch.cat(outs, 1), ref.gqa(rp, x.to(D64), H, Hkv), dt, "CachedGQA chunks 3+1+5 vs whole sequence")
        tests.append((f"CachedGQA chunks B={B} H={H} Hkv={Hkv}", run_chunks))
    return tests


def random_pattern(B, H, L, dtype=D64, seed=0):
    s = rnd(B, H, L, L, seed=seed, scale=2).masked_fill(~ref.causal_mask(L), float("-inf"))
    return ref.softmax(s, -1).to(dtype)


def t_ex9(m):
    tests = []

    def tokens():
        for (b, n, V) in [(3, 5, 11), (1, 1, 1), (2, 4, 2), (4, 50, 2)]:
            t = m.repeated_tokens(b, n, V, generator=gen(5))
            need(isinstance(t, torch.Tensor) and t.dtype == torch.long, f"repeated_tokens: dtype {getattr(t, 'dtype', None)}, want int64")
            need(tuple(t.shape) == (b, 2 * n), f"repeated_tokens: shape {tuple(t.shape)}, want {(b, 2 * n)}")
            need(t.device.type == "cpu", "repeated_tokens: not on the CPU")
            need(torch.equal(t[:, :n], t[:, n:]), "repeated_tokens: the second half is not the first half again")
            need(int(t.min()) >= 0 and int(t.max()) <= V - 1, f"repeated_tokens: tokens outside 0..{V - 1}")
            if b * n >= 100:
                need(set(t.flatten().tolist()) == set(range(V)), f"repeated_tokens: not every token 0..{V - 1} is drawn")
        a = m.repeated_tokens(2, 6, 100, generator=gen(9))
        torch.randint(10, (5,))
        b_ = m.repeated_tokens(2, 6, 100, generator=gen(9))
        need(torch.equal(a, b_), "repeated_tokens: the same seed does not give the same tokens")
        c = m.repeated_tokens(2, 6, 100)
        need(tuple(c.shape) == (2, 12), "repeated_tokens without a generator fails")
    tests.append(("repeated_tokens", tokens))

    for (B, H, L) in [(2, 3, 6), (1, 1, 2), (3, 2, 8), (2, 4, 4), (1, 3, 10)]:
        def mk(dt, dev, B=B, H=H, L=L):
            return [random_pattern(B, H, L, dt, seed=L).to(dev)]
        tests.append((f"previous_token_score {(B, H, L)}", lambda mk=mk: check_fn(m.previous_token_score, ref.previous_token_score, mk, "previous_token_score", grad=False)))
        def mk2(dt, dev, B=B, H=H, L=L):
            return [random_pattern(B, H, L, dt, seed=L + 1).to(dev), L // 2]
        tests.append((f"induction_score {(B, H, L)}", lambda mk2=mk2: check_fn(m.induction_score, ref.induction_score, mk2, "induction_score", grad=False)))

    def raises(fn, *a):
        try:
            fn(*a)
        except ValueError:
            return True
        except Exception:  # noqa: BLE001
            return False
        return False

    def errors():
        need(raises(m.previous_token_score, random_pattern(2, 3, 4)[0]), "previous_token_score: a 3-D pattern does not raise ValueError")
        need(raises(m.previous_token_score, random_pattern(2, 3, 4)[..., :3]), "previous_token_score: non-square pattern does not raise ValueError")
        need(raises(m.previous_token_score, torch.ones(2, 3, 1, 1)), "previous_token_score: L = 1 does not raise ValueError")
        need(raises(m.induction_score, random_pattern(2, 3, 6), 2), "induction_score: L != 2 * seq_len does not raise ValueError")
        need(raises(m.induction_score, random_pattern(2, 3, 6)[..., :5], 3), "induction_score: non-square pattern does not raise ValueError")
        need(raises(m.induction_score, random_pattern(2, 3, 6)[0], 3), "induction_score: a 3-D pattern does not raise ValueError")
        need(raises(m.find_heads, [random_pattern(1, 2, 5)]), "find_heads: odd L does not raise ValueError")
    tests.append(("score ValueErrors", errors))

    def heads():
        n = 4
        L = 2 * n
        prev = torch.zeros(L, L, dtype=D64)
        prev[0, 0] = 1
        prev[torch.arange(1, L), torch.arange(L - 1)] = 1
        ind = ref.causal_mask(L).to(D64)
        ind = ind / ind.sum(-1, keepdim=True)
        rows = torch.arange(n, L)
        ind[rows] = 0
        ind[rows, rows - n + 1] = 1
        half = torch.zeros(L, L, dtype=D64)
        half[0, 0] = 1
        half[torch.arange(1, L), torch.arange(L - 1)] = 0.5
        half[torch.arange(1, L), torch.arange(1, L)] = 0.5  # previous-token score exactly 0.5
        uni = ref.causal_mask(L).to(D64)
        uni = uni / uni.sum(-1, keepdim=True)
        l0 = torch.stack([prev, uni, half]).expand(2, 3, L, L).clone()
        l1 = torch.stack([uni, ind, prev]).expand(2, 3, L, L).clone()
        l2 = torch.stack([uni, uni, uni]).expand(2, 3, L, L).clone()
        for pats, thr in [([l0, l1], 0.4), ((l0, l1, l2), 0.5), ([l2], 0.4), ([l0], 0.0)]:
            got = m.find_heads(pats, thr) if thr != 0.4 else m.find_heads(pats)
            want = ref.find_heads(pats, thr)
            need(isinstance(got, dict) and set(got) == {"previous_token", "induction"}, f"find_heads: keys {list(got) if isinstance(got, dict) else type(got)}")
            for key in want:
                lst = got[key]
                need(isinstance(lst, list), f"find_heads[{key!r}]: not a list")
                for pair in lst:
                    need(isinstance(pair, tuple) and len(pair) == 2 and all(type(v) is int for v in pair),
                         f"find_heads[{key!r}]: entry {pair!r} is not an (int, int) tuple")
                need(lst == want[key], f"find_heads[{key!r}] (threshold {thr}): {lst}, want {want[key]}")
    tests.append(("find_heads", heads))
    return tests


def t_ex10(m):
    tests = []

    def costs():
        for L, d in [(1, 1), (7, 3), (1024, 768), (5, 64)]:
            got = m.attention_cost(L, d)
            want = ref.attention_cost(L, d)
            need(isinstance(got, dict) and set(got) == set(want), f"attention_cost: keys {sorted(got) if isinstance(got, dict) else got}")
            for key in want:
                need(type(got[key]) is int and got[key] == want[key], f"attention_cost({L}, {d})[{key!r}] = {got[key]!r}, want {want[key]}")
        for d in [768, 1, 4096, 7]:
            got = m.crossover_length(d)
            need(type(got) is int and got == 6 * d, f"crossover_length({d}) = {got!r}, want the int {6 * d}")
    tests.append(("attention_cost and crossover_length", costs))

    def sm_in(shape, dt, dev, kind):
        x = rnd(*shape, seed=80, scale=2)
        if kind == "rising":
            x = x + torch.arange(shape[-1], dtype=D64) * 3  # the max rises block after block
        if kind == "masked":
            x = x.masked_fill(torch.rand(*shape, generator=gen(81)) < 0.4, float("-inf"))
            x.view(-1, shape[-1])[0] = float("-inf")
            x.view(-1, shape[-1])[-1, :2] = float("-inf")  # a row whose first block is all -inf
        if kind == "huge":
            x = x * 5000
        return x.to(dt).to(dev)

    for shape in [(7,), (3, 7), (2, 3, 10), (1, 1)]:
        for kind in ["plain", "rising", "masked", "huge"]:
            for bs in sorted({1, 3, shape[-1], shape[-1] + 5}):
                def mk(dt, dev, shape=shape, kind=kind, bs=bs):
                    return [sm_in(shape, dt, dev, kind), bs]
                dts = (D64, torch.float32, torch.bfloat16) if kind == "huge" else (D64,) + LOW
                tests.append((f"online_softmax {shape} {kind} block={bs}",
                              lambda mk=mk, dts=dts: check_fn(m.online_softmax, lambda x, b: ref.softmax(x, -1), mk, "online_softmax", dtypes=dts, grad=False)))

    for lead in [(), (2,), (2, 3)]:
        for (Lq, Lk) in [(5, 5), (3, 7), (7, 3), (1, 1), (1, 6), (6, 1)]:
            for bs in sorted({1, 2, 4, Lk, 100}):
                for causal in (False, True):
                    def mk(dt, dev, lead=lead, Lq=Lq, Lk=Lk, bs=bs, causal=causal):
                        q = rnd(*lead, Lq, 3, dtype=dt, seed=82, scale=1.5).to(dev)
                        k = rnd(*lead, Lk, 3, dtype=dt, seed=83, scale=1.5).to(dev)
                        v = rnd(*lead, Lk, 5, dtype=dt, seed=84).to(dev)
                        return [q, k, v, bs, causal]
                    tests.append((f"tiled_attention lead={lead} {Lq}x{Lk} block={bs} causal={causal}",
                                  lambda mk=mk: check_fn(m.tiled_attention, lambda q, k, v, b, c: ref.full_attention(q, k, v, c), mk, "tiled_attention")))

    def memory():
        for causal in (False, True):
            q, k, v = rnd(2, 96, 4, seed=85), rnd(2, 96, 4, seed=86), rnd(2, 96, 4, seed=87)
            mode = MaxNumel()
            with mode:
                m.tiled_attention(q, k, v, 8, causal=causal)
            need(mode.max < 2 * 96 * 96 // 2, f"tiled_attention: a tensor of shape {mode.shape} ({mode.max} numbers) is built: the L_q x L_k scores are materialised")
    tests.append(("tiled_attention memory", memory))
    return tests


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
