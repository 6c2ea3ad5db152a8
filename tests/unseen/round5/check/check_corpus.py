"""Check every corpus file against the float64 reference in ref.py.

honest_* files must pass every check; wrong_* files must fail at least one.
Usage: python3 check_corpus.py [exerciseN ...]   (prints one line per file, failing checks listed)
Device checks run on CUDA when present, else on the 'meta' device (a device mismatch raises there).
"""

import contextlib
import glob
import importlib.util
import math
import os
import re
import sys
import traceback

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import ref

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")  # the corpus beside this folder
DEV = "cuda" if torch.cuda.is_available() else "meta"
F64 = torch.float64
torch.manual_seed(0)


# ------------------------------------------------------------------ helpers
class Rec(TorchDispatchMode):
    """Records every aten op and the largest tensor any op returns."""

    def __init__(self):
        super().__init__()
        self.ops, self.max_numel = [], 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.ops.append(str(func))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self.max_numel = max(self.max_numel, t.numel())
        return out


MATMUL_OPS = ("aten.mm.", "aten.bmm.", "aten.addmm.", "aten.baddbmm.", "aten.dot.", "aten.mv.", "aten.matmul.")
ALLOC_OPS = ("aten.cat.", "aten.stack.", "aten.zeros", "aten.empty", "aten.full", "aten.ones", "aten.clone.",
             "aten.new_", "aten._to_copy.", "aten.arange", "aten.rand", "aten.resize")


@contextlib.contextmanager
def no_torch_softmax():
    saved = []

    def refuse(*a, **k):
        raise RuntimeError("REFUSED: torch softmax / fused attention used")

    targets = [(torch, "softmax"), (torch.nn.functional, "softmax"), (torch.nn.functional, "log_softmax"),
               (torch.Tensor, "softmax"), (torch.Tensor, "log_softmax"), (torch.special, "softmax"),
               (torch.nn.functional, "scaled_dot_product_attention"), (torch, "log_softmax")]
    for obj, name in targets:
        if hasattr(obj, name):
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, refuse)
    try:
        yield
    finally:
        for obj, name, f in saved:
            setattr(obj, name, f)


def close(a, b, rtol=1e-9, atol=1e-11):
    if not isinstance(a, torch.Tensor):
        return False, f"not a tensor: {type(a)}"
    if a.shape != b.shape:
        return False, f"shape {tuple(a.shape)} != {tuple(b.shape)}"
    a64, b64 = a.detach().to("cpu", F64), b.detach().to("cpu", F64)
    if torch.isnan(a64).any() and not torch.isnan(b64).any():
        return False, "NaN"
    ok = torch.allclose(a64, b64, rtol=rtol, atol=atol, equal_nan=True)
    if not ok:
        err = (a64 - b64).abs().nan_to_num(float("inf")).max().item()
        return False, f"max abs err {err:.3g}"
    return True, ""


class Checker:
    def __init__(self):
        self.results = []

    def run(self, name, fn, meta_inconclusive=False):
        try:
            r = fn()
            ok, detail = (r, "") if isinstance(r, bool) else r
        except Exception as e:  # noqa: BLE001
            msg = f"{type(e).__name__}: {str(e)[:120]}"
            if meta_inconclusive and DEV == "meta" and not re.search(r"expected device|same device|device", str(e)):
                ok, detail = True, "inconclusive on meta: " + msg
            else:
                ok, detail = False, msg
        self.results.append((name, bool(ok), detail))


def rnd(*shape, dtype=F64, device="cpu"):
    return torch.randn(*shape, dtype=dtype, device=device)


def unchanged(fn, *tensors):
    copies = [t.clone() for t in tensors]
    shapes = [t.shape for t in tensors]
    fn(*tensors)
    for t, c, s in zip(tensors, copies, shapes):
        if t.shape != s or not torch.equal(t, c):
            return False, "an input was changed"
    return True, ""


def on_dev(t):
    return isinstance(t, torch.Tensor) and t.device.type == DEV


def dev(t):
    return t.to(DEV)


# ------------------------------------------------------------------ exercise 1
def ex1(m, c):
    def values():
        for shape in [(5, 7), (2, 5, 7), (2, 3, 4, 7)]:
            x, wq, wk, wv = rnd(*shape), rnd(7, 4), rnd(7, 4), rnd(7, 6)
            q, k, v = m.project(x, wq, wk, wv)
            for a, b in [(q, x @ wq), (k, x @ wk), (v, x @ wv)]:
                ok, d = close(a, b)
                if not ok:
                    return False, f"project {shape}: {d}"
        return True

    def fused_values():
        for shape, d in [(( 4, 3), 3), ((5, 7), 4), ((2, 5, 8), 8), ((2, 3, 4, 6), 5)]:
            x = rnd(*shape)
            wq, wk, wv = rnd(shape[-1], d), rnd(shape[-1], d), rnd(shape[-1], d)
            out = m.fused_project(x, torch.cat([wq, wk, wv], dim=1))
            if len(out) != 3:
                return False, f"fused returned {len(out)} tensors"
            for a, b in zip(out, [x @ wq, x @ wk, x @ wv]):
                ok, dd = close(a, b)
                if not ok:
                    return False, f"fused {shape} d={d}: {dd}"
        return True

    def napkin():
        X = torch.tensor([[0, 0, 1], [2, 1, 0], [0, 1, 1], [1, 0, 0]], dtype=F64)
        WQ = torch.tensor([[1, 0, 1], [1, 1, 0], [0, 1, 0]], dtype=F64)
        WK = torch.tensor([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=F64)
        WV = torch.tensor([[1, 0, 0], [0, 1, 0], [0, 0, 2]], dtype=F64)
        q, k, v = m.project(X, WQ, WK, WV)
        return close(q[2], torch.tensor([1.0, 2, 0], dtype=F64))

    def dtypes():
        for dt in [torch.float32, torch.bfloat16]:
            x, w = rnd(2, 5, 6, dtype=dt), rnd(6, 9, dtype=dt)
            outs = list(m.project(x, w[:, :3], w[:, 3:6], w[:, 6:])) + list(m.fused_project(x, w))
            if any(o.dtype != dt for o in outs):
                return False, f"{dt} -> {[o.dtype for o in outs]}"
        return True

    def same_inputs():
        x, w = rnd(2, 5, 6), rnd(6, 9)
        return unchanged(lambda a, b: (m.project(a, b[:, :3], b[:, 3:6], b[:, 6:]), m.fused_project(a, b)), x, w)

    def device():
        x, w = dev(rnd(2, 5, 6)), dev(rnd(6, 9))
        outs = list(m.project(x, w[:, :3], w[:, 3:6], w[:, 6:])) + list(m.fused_project(x, w))
        return all(on_dev(o) for o in outs)

    def one_product():
        x, w = rnd(2, 5, 6), rnd(6, 9)
        with Rec() as r:
            m.fused_project(x, w)
        n = sum(op.startswith(MATMUL_OPS) for op in r.ops)
        return n == 1, f"{n} matrix products"

    for n, f in [("values", values), ("fused_values", fused_values), ("napkin", napkin), ("dtypes", dtypes),
                 ("inputs_unchanged", same_inputs), ("device", device), ("fused_one_product", one_product)]:
        c.run(n, f, meta_inconclusive=(n == "device"))


# ------------------------------------------------------------------ exercise 2
def ex2(m, c):
    def values():
        for qs, ks in [((4, 3), (6, 3)), ((2, 5, 4), (2, 7, 4)), ((2, 3, 5, 4), (2, 3, 5, 4)),
                       ((1, 1, 4), (1, 6, 4)), ((2, 3, 1, 8), (2, 3, 9, 8)), ((3, 4), (1, 4))]:
            q, k = rnd(*qs), rnd(*ks)
            ok, d = close(m.attention_scores(q, k), q @ k.transpose(-2, -1))
            if not ok:
                return False, f"{qs}x{ks}: {d}"
        return True

    def napkin():
        q = torch.tensor([[1.0, 2, 0]], dtype=F64)
        K = torch.tensor([[0, 0, 1], [1, 2, 0], [1, 0, 1], [0, 1, 0]], dtype=F64)
        return close(m.attention_scores(q, K), torch.tensor([[0.0, 5, 1, 2]], dtype=F64))

    def dtypes():
        for dt in [torch.float32, torch.bfloat16, torch.float64]:
            o = m.attention_scores(rnd(2, 4, 3, dtype=dt), rnd(2, 5, 3, dtype=dt))
            if o.dtype != dt:
                return False, f"{dt} -> {o.dtype}"
        return True

    c.run("values", values)
    c.run("napkin", napkin)
    c.run("dtypes", dtypes)
    c.run("inputs_unchanged", lambda: unchanged(m.attention_scores, rnd(2, 4, 3), rnd(2, 5, 3)))
    c.run("device", lambda: on_dev(m.attention_scores(dev(rnd(2, 4, 3)), dev(rnd(2, 5, 3)))), True)


# ------------------------------------------------------------------ exercise 3
def ex3(m, c):
    def scale_values():
        for d in [1, 3, 8, 64, 100]:
            s = rnd(2, 4, 5) * 10
            ok, dd = close(m.scale_scores(s, d), s / math.sqrt(d))
            if not ok:
                return False, f"d_k={d}: {dd}"
        return True

    def scaled_values():
        for qs, ks in [((4, 3), (6, 3)), ((2, 5, 8), (2, 7, 8)), ((2, 3, 5, 16), (2, 3, 2, 16)), ((1, 64), (9, 64))]:
            q, k = rnd(*qs), rnd(*ks)
            ok, d = close(m.scaled_scores(q, k), q @ k.transpose(-2, -1) / math.sqrt(qs[-1]))
            if not ok:
                return False, f"{qs}x{ks}: {d}"
        return True

    def dtypes():
        for dt in [torch.float32, torch.bfloat16, torch.float16, torch.float64]:
            a = m.scale_scores(rnd(2, 3, 3, dtype=dt), 8)
            b = m.scaled_scores(rnd(2, 3, 8, dtype=dt), rnd(2, 4, 8, dtype=dt))
            if a.dtype != dt or b.dtype != dt:
                return False, f"{dt} -> {a.dtype}, {b.dtype}"
        return True

    def device():
        a = m.scale_scores(dev(rnd(2, 3, 3)), 8)
        b = m.scaled_scores(dev(rnd(2, 3, 8)), dev(rnd(2, 4, 8)))
        return on_dev(a) and on_dev(b)

    c.run("scale_values", scale_values)
    c.run("scaled_values", scaled_values)
    c.run("dtypes", dtypes)
    c.run("inputs_unchanged", lambda: unchanged(lambda s, q, k: (m.scale_scores(s, 3), m.scaled_scores(q, k)),
                                                rnd(2, 3, 4), rnd(2, 3, 5), rnd(2, 4, 5)))
    c.run("device", device, True)


# ------------------------------------------------------------------ exercise 4
def ex4(m, c):
    def causal_values():
        for L in range(1, 8):
            cm = m.causal_mask(L)
            if cm.dtype != torch.bool or not torch.equal(cm.cpu(), ref.causal(L)):
                return False, f"L={L}: {cm.dtype}"
        return True

    def apply_values():
        s = rnd(2, 4, 5)
        for mask in [ref.causal(5)[1:], torch.rand(2, 4, 5) > 0.5, (torch.rand(2, 1, 5) > 0.4),
                     torch.zeros(4, 5, dtype=torch.bool)]:
            out = m.apply_mask(s, mask)
            want = s.masked_fill(~mask, float("-inf"))
            if out.shape != want.shape or not torch.equal(out, want):
                return False, "apply_mask values differ"
        return True

    def apply_dtypes():
        for dt in [torch.float32, torch.float16, torch.bfloat16]:
            s = rnd(3, 4, dtype=dt)
            mask = ref.causal(4)[1:]
            out = m.apply_mask(s, mask)
            want = s.masked_fill(~mask, float("-inf"))
            if out.dtype != dt or not torch.equal(out, want):
                return False, f"{dt}: {out.dtype}"
        return True

    def apply_unchanged():
        return unchanged(lambda s, mk: m.apply_mask(s, mk), rnd(2, 4, 5), torch.rand(2, 4, 5) > 0.5)

    def padding_values():
        for lengths, L in [([3, 1], 4), ([0, 4, 2], 4), ([2, 2], 6), ([5], 5), ([0], 3)]:
            lt = torch.tensor(lengths, dtype=torch.long)
            pm = m.padding_mask(lt, L)
            if pm.dtype != torch.bool or pm.shape != (len(lengths), 1, L) or not torch.equal(pm, ref.padding(lt, L)):
                return False, f"lengths={lengths} L={L}: {pm.dtype} {tuple(pm.shape)}"
        return True

    def device():
        cm = m.causal_mask(4, device=DEV)
        s = dev(rnd(2, 4, 4))
        am = m.apply_mask(s, dev(ref.causal(4)))
        return on_dev(cm) and on_dev(am), f"{cm.device}, {am.device}"

    def padding_device():
        pm = m.padding_mask(dev(torch.tensor([3, 1])), 4)
        return on_dev(pm), str(pm.device)

    for n, f in [("causal_values", causal_values), ("apply_values", apply_values), ("apply_dtypes", apply_dtypes),
                 ("apply_unchanged", apply_unchanged), ("padding_values", padding_values), ("device", device)]:
        c.run(n, f, meta_inconclusive=(n == "device"))
    c.run("padding_device", padding_device, True)


# ------------------------------------------------------------------ exercise 5
def softmax_inputs():
    x1 = rnd(3, 6) * 3
    x2 = rnd(2, 3, 5)
    x3 = torch.tensor([[1e4, 0.0, -1e4], [-1e4, -1e4, -1e4 + 1], [1.0, float("-inf"), 2.0],
                       [float("-inf")] * 3], dtype=F64)
    x4 = torch.tensor([[5000.0, 4999.0], [-3000.0, -3001.0]], dtype=F64)  # rows far apart
    return [(x1, -1), (x1, 0), (x2, 1), (x2, -1), (x3, -1), (x4, -1), (rnd(7), 0)]


def ex5(m, c):
    def sm_values():
        for x, d in softmax_inputs():
            with no_torch_softmax():
                out = m.softmax(x, dim=d)
            ok, dd = close(out, ref.softmax(x, d))
            if not ok:
                return False, f"shape {tuple(x.shape)} dim={d}: {dd}"
        return True

    def sm_grads():
        for x, d in softmax_inputs():
            x1 = x.clone().requires_grad_(True)
            x2 = x.clone().requires_grad_(True)
            w = rnd(*x.shape)
            with no_torch_softmax():
                (m.softmax(x1, dim=d) * w).sum().backward()
            (ref.softmax(x2, d) * w).sum().backward()
            g1 = x1.grad
            if g1 is None or not torch.isfinite(g1).all():
                return False, f"non-finite grad, dim={d}, shape {tuple(x.shape)}"
            ok, dd = close(g1, x2.grad)
            if not ok:
                return False, f"grad {dd}"
        return True

    def sm_dtypes():
        for dt in [torch.float32, torch.bfloat16, torch.float16]:
            x = rnd(3, 5, dtype=dt)
            with no_torch_softmax():
                o = m.softmax(x, -1)
            if o.dtype != dt:
                return False, f"{dt} -> {o.dtype}"
            ok, dd = close(o, ref.softmax(x.double(), -1), rtol=2e-2, atol=2e-3)
            if not ok:
                return False, f"{dt}: {dd}"
        return True

    def attn_cases():
        B, H = 2, 2
        lengths = torch.tensor([3, 0])
        pad = ref.padding(lengths, 5)[:, None]  # (B, 1, 1, 5), sequence 1 fully masked
        return [
            (rnd(4, 3), rnd(6, 3), rnd(6, 5), None),
            (rnd(B, H, 5, 4), rnd(B, H, 5, 4), rnd(B, H, 5, 2), ref.causal(5)),
            (rnd(B, H, 5, 4), rnd(B, H, 5, 4), rnd(B, H, 5, 3), pad),
            (rnd(B, H, 5, 4), rnd(B, H, 5, 4), rnd(B, H, 5, 3), pad & ref.causal(5)),
            (rnd(2, 3, 8) * 4, rnd(2, 7, 8) * 4, rnd(2, 7, 8), torch.rand(2, 3, 7) > 0.5),
        ]

    def attn_values():
        for q, k, v, mk in attn_cases():
            with no_torch_softmax():
                o, w = m.scaled_dot_product_attention(q, k, v, mk)
            ro, rw = ref.attention(q, k, v, mk)
            for a, b, nm in [(o, ro, "output"), (w, rw, "weights")]:
                ok, dd = close(a, b)
                if not ok:
                    return False, f"{nm} {tuple(q.shape)}: {dd}"
        return True

    def attn_grads():
        q, k, v, mk = attn_cases()[3]
        ins = [t.clone().requires_grad_(True) for t in (q, k, v)]
        ins2 = [t.clone().requires_grad_(True) for t in (q, k, v)]
        with no_torch_softmax():
            o, _ = m.scaled_dot_product_attention(*ins, mk)
        o.sum().backward()
        ref.attention(*ins2, mk)[0].sum().backward()
        for a, b in zip(ins, ins2):
            if a.grad is None or not torch.isfinite(a.grad).all():
                return False, "non-finite grad"
            ok, dd = close(a.grad, b.grad)
            if not ok:
                return False, f"grad {dd}"
        return True

    def unchanged_all():
        x = softmax_inputs()[4][0]
        q, k, v, mk = attn_cases()[2]
        return unchanged(lambda a, b, cc, d: (m.softmax(a, -1), m.scaled_dot_product_attention(b, cc, d, mk)), x, q, k, v)

    def device():
        with no_torch_softmax():
            s = m.softmax(dev(rnd(3, 4)), -1)
            o, w = m.scaled_dot_product_attention(dev(rnd(2, 3, 4)), dev(rnd(2, 3, 4)), dev(rnd(2, 3, 4)), dev(ref.causal(3)))
        return on_dev(s) and on_dev(o) and on_dev(w)

    for n, f in [("softmax_values", sm_values), ("softmax_grads", sm_grads), ("softmax_dtypes", sm_dtypes),
                 ("attention_values", attn_values), ("attention_grads", attn_grads), ("inputs_unchanged", unchanged_all),
                 ("device", device)]:
        c.run(n, f, meta_inconclusive=(n == "device"))


# ------------------------------------------------------------------ exercise 6
def ex6(m, c):
    def split_merge():
        for B, L, D, H in [(2, 5, 12, 3), (1, 4, 8, 8), (3, 2, 6, 1)]:
            x = rnd(B, L, D)
            xc = x.clone()
            s = m.split_heads(x, H)
            ok, d = close(s, ref.split_heads(x, H))
            if not ok:
                return False, f"split {d}"
            y = rnd(B, L, H, D // H).transpose(1, 2)  # non-contiguous (B, H, L, dh)
            yc = y.clone()
            mg = m.merge_heads(y)
            ok, d = close(mg, ref.merge_heads(y))
            if not ok:
                return False, f"merge {d}"
            if not torch.equal(x, xc) or y.shape != yc.shape or not torch.equal(y, yc):
                return False, "input changed"
        return True

    def make(D, H, bias):
        mod = m.MultiHeadAttention(D, H, bias=bias).double()
        keys = set(mod.state_dict())
        want = {"qkv.weight", "out.weight"} | ({"qkv.bias", "out.bias"} if bias else set())
        if keys != want:
            raise AssertionError(f"state dict keys {sorted(keys)}")
        sd = {"qkv.weight": rnd(3 * D, D) / 3, "out.weight": rnd(D, D) / 3}
        if bias:
            sd["qkv.bias"], sd["out.bias"] = rnd(3 * D), rnd(D)
        mod.load_state_dict(sd)
        return mod, sd

    def forward_values():
        for D, H, bias in [(12, 3, True), (8, 2, False), (6, 6, True)]:
            mod, sd = make(D, H, bias)
            for L in [5, 3, 7]:  # several lengths through the same module
                x = rnd(2, L, D)
                ok, d = close(mod(x), ref.mha(x, sd, H))
                if not ok:
                    return False, f"D={D} H={H} L={L}: {d}"
        return True

    def given_masks():
        mod, sd = make(12, 3, True)
        x = rnd(2, 5, 12)
        full = torch.ones(5, 5, dtype=torch.bool)
        pad = ref.padding(torch.tensor([3, 0]), 5)[:, None]  # sequence 1 all padding
        for mk in [full, pad, pad & ref.causal(5)]:
            out = mod(x, mk)
            if torch.isnan(out).any():
                return False, "NaN"
            ok, d = close(out, ref.mha(x, sd, 3, mk))
            if not ok:
                return False, f"mask {tuple(mk.shape)}: {d}"
        mod2, sd2 = make(8, 2, False)
        out = mod2(rnd(2, 4, 8), ref.padding(torch.tensor([0, 0]), 4)[:, None])
        return close(out, torch.zeros_like(out))

    def dtype_f32():
        mod = m.MultiHeadAttention(8, 2)
        out = mod(torch.randn(2, 4, 8))
        return out.dtype == torch.float32

    def device():
        mod = m.MultiHeadAttention(8, 2).to(DEV)
        return on_dev(mod(dev(torch.randn(2, 4, 8))))

    for n, f in [("split_merge", split_merge), ("forward_values", forward_values), ("given_masks", given_masks),
                 ("dtype_f32", dtype_f32), ("device", device)]:
        c.run(n, f, meta_inconclusive=(n == "device"))


# ------------------------------------------------------------------ exercise 7
def ex7(m, c):
    def repeat_values():
        for Hkv, rep in [(2, 3), (1, 4), (3, 1), (4, 2)]:
            x = rnd(2, Hkv, 5, 3)
            xc = x.clone()
            out = m.repeat_kv(x, rep)
            want = x[:, [j // rep for j in range(Hkv * rep)]]
            ok, d = close(out, want)
            if not ok:
                return False, f"H_kv={Hkv} n_rep={rep}: {d}"
            if not torch.equal(x, xc):
                return False, "input changed"
            out.add_(1.0)  # a NEW tensor: writing to it leaves x alone
            if not torch.equal(x, xc):
                return False, f"result shares memory with x (n_rep={rep})"
        return True

    def make(D, H, Hkv):
        mod = m.GroupedQueryAttention(D, H, Hkv).double()
        dh = D // H
        shapes = {"q_proj.weight": (H * dh, D), "k_proj.weight": (Hkv * dh, D), "v_proj.weight": (Hkv * dh, D),
                  "o_proj.weight": (D, H * dh)}
        got = {k: tuple(v.shape) for k, v in mod.state_dict().items()}
        if got != shapes:
            raise AssertionError(f"state dict {got}")
        sd = {k: rnd(*s) / 2 for k, s in shapes.items()}
        mod.load_state_dict(sd)
        return mod, sd

    def forward_values():
        for D, H, Hkv in [(16, 4, 2), (16, 4, 1), (12, 4, 4), (12, 6, 3)]:
            mod, sd = make(D, H, Hkv)
            for L in [5, 2]:
                x = rnd(2, L, D)
                ok, d = close(mod(x), ref.gqa(x, sd, H, Hkv))
                if not ok:
                    return False, f"D={D} H={H} H_kv={Hkv} L={L}: {d}"
        return True

    def given_masks():
        mod, sd = make(16, 4, 2)
        x = rnd(2, 5, 16)
        pad = ref.padding(torch.tensor([2, 0]), 5)[:, None]
        for mk in [torch.ones(5, 5, dtype=torch.bool), pad]:
            out = mod(x, mk)
            ok, d = close(out, ref.gqa(x, sd, 4, 2, mk))
            if not ok:
                return False, f"mask {tuple(mk.shape)}: {d}"
        return True

    def device():
        mod = m.GroupedQueryAttention(16, 4, 2).to(DEV)
        r = m.repeat_kv(dev(rnd(2, 2, 3, 4)), 2)
        return on_dev(mod(dev(torch.randn(2, 4, 16)))) and on_dev(r)

    for n, f in [("repeat_values", repeat_values), ("forward_values", forward_values), ("given_masks", given_masks),
                 ("device", device)]:
        c.run(n, f, meta_inconclusive=(n == "device"))


# ------------------------------------------------------------------ exercise 8
def ex8(m, c):
    def bytes_values():
        cases = [((32, 32, 128, 4096), 2_147_483_648), ((80, 8, 128, 1), 327_680), ((2, 3, 4, 5, 6, 4), 2 * 2 * 3 * 4 * 5 * 6 * 4),
                 ((1, 1, 1, 1), 4), ((3, 2, 8, 10, 3), 2 * 3 * 2 * 8 * 10 * 3 * 2)]
        for args, want in cases:
            got = m.kv_cache_bytes(*args)
            if type(got) is not int or got != want:
                return False, f"{args}: {got!r} != {want}"
        return True

    def chunks():
        cache = m.KVCache(2, 3, 4, 10, dtype=F64)
        ks, vs = rnd(2, 3, 9, 4), rnd(2, 3, 9, 4)
        pos = 0
        for t in [3, 1, 5]:
            K, V = cache.update(ks[:, :, pos:pos + t], vs[:, :, pos:pos + t])
            pos += t
            if len(cache) != pos:
                return False, f"len {len(cache)} != {pos}"
            for a, b in [(K, ks[:, :, :pos]), (V, vs[:, :, :pos])]:
                ok, d = close(a, b)
                if not ok:
                    return False, f"after {pos}: {d}"
        return True

    def exact_fill_and_overflow():
        cache = m.KVCache(1, 2, 3, 6, dtype=F64)
        ks = rnd(1, 2, 8, 3)
        cache.update(ks[:, :, :4], ks[:, :, :4])
        try:
            cache.update(ks[:, :, 4:7], ks[:, :, 4:7])
            return False, "no ValueError when over max_len"
        except ValueError:
            pass
        if len(cache) != 4:
            return False, f"failed append changed len to {len(cache)}"
        K, _ = cache.update(ks[:, :, 4:6], ks[:, :, 4:6])  # exactly max_len
        if len(cache) != 6:
            return False, f"len {len(cache)} at max_len"
        return close(K, ks[:, :, :6])

    def reset():
        cache = m.KVCache(1, 2, 3, 6, dtype=F64)
        a, b = rnd(1, 2, 4, 3), rnd(1, 2, 2, 3)
        cache.update(a, a)
        cache.reset()
        if len(cache) != 0:
            return False, f"len {len(cache)} after reset"
        K, V = cache.update(b, b)
        return close(K, b)

    def no_allocation():
        cache = m.KVCache(1, 2, 3, 8, dtype=F64)
        a = rnd(1, 2, 3, 3)
        with Rec() as r:
            cache.update(a, a)
            cache.update(a[:, :, :1], a[:, :, :1])
            cache.reset()
            cache.update(a, a)
        bad = sorted({op for op in r.ops if op.startswith(ALLOC_OPS)})
        return not bad, f"allocating ops after __init__: {bad}"

    def cache_dtype():
        cache = m.KVCache(1, 2, 3, 5, dtype=F64)
        K, V = cache.update(rnd(1, 2, 2, 3), rnd(1, 2, 2, 3))
        return K.dtype == F64 and V.dtype == F64, f"{K.dtype}"

    def cache_device():
        cache = m.KVCache(1, 2, 3, 5, dtype=torch.float32, device=DEV)
        K, V = cache.update(dev(torch.randn(1, 2, 2, 3)), dev(torch.randn(1, 2, 2, 3)))
        return on_dev(K) and on_dev(V)

    def make(D, H, Hkv):
        mod = m.CachedGroupedQueryAttention(D, H, Hkv).double()
        sd = {k: rnd(*v.shape) / 2 for k, v in mod.state_dict().items()}
        mod.load_state_dict(sd)
        return mod, sd

    def cached_forward():
        for D, H, Hkv, parts in [(16, 4, 2, [3, 1, 5]), (12, 3, 1, [1, 1, 1, 1]), (8, 2, 2, [4, 2]), (16, 4, 4, [2, 3])]:
            mod, sd = make(D, H, Hkv)
            T = sum(parts)
            x = rnd(2, T, D)
            want = ref.gqa(x, sd, H, Hkv)
            ok, d = close(mod(x), want)
            if not ok:
                return False, f"cache=None: {d}"
            cache = m.KVCache(2, Hkv, D // H, T + 2, dtype=F64)
            pos, outs = 0, []
            for t in parts:
                outs.append(mod(x[:, pos:pos + t], cache))
                pos += t
            ok, d = close(torch.cat(outs, 1), want)
            if not ok:
                return False, f"chunks {parts}: {d}"
        return True

    for n, f in [("bytes", bytes_values), ("chunks", chunks), ("exact_fill_and_overflow", exact_fill_and_overflow),
                 ("reset", reset), ("no_allocation_after_init", no_allocation), ("cache_dtype", cache_dtype),
                 ("cache_device", cache_device), ("cached_forward", cached_forward)]:
        c.run(n, f)


# ------------------------------------------------------------------ exercise 9
def ex9(m, c):
    def tokens():
        t = m.repeated_tokens(3, 5, 7, generator=torch.Generator().manual_seed(1))
        if t.dtype != torch.long or t.shape != (3, 10) or t.device.type != "cpu":
            return False, f"{t.dtype} {tuple(t.shape)} {t.device}"
        if not torch.equal(t[:, :5], t[:, 5:]):
            return False, "halves differ"
        big = m.repeated_tokens(200, 50, 4, generator=torch.Generator().manual_seed(2))
        counts = torch.bincount(big[:, :50].flatten(), minlength=4)
        if big.min() < 0 or big.max() > 3 or counts.numel() != 4 or (counts < 0.2 * 10000 / 4).any():
            return False, f"token counts {counts.tolist()}"
        return True

    def reproducible():
        torch.manual_seed(123)
        a = m.repeated_tokens(2, 6, 50, generator=torch.Generator().manual_seed(7))
        torch.manual_seed(456)
        b = m.repeated_tokens(2, 6, 50, generator=torch.Generator().manual_seed(7))
        return torch.equal(a, b), "same generator seed gave different tokens"

    def pat(B, H, L, dtype=F64):
        p = torch.rand(B, H, L, L, dtype=dtype)
        return p / p.sum(-1, keepdim=True)

    def prev_values():
        for B, H, L in [(2, 3, 6), (1, 4, 2), (3, 1, 9)]:
            p = pat(B, H, L)
            ok, d = close(m.previous_token_score(p), ref.prev_score(p))
            if not ok:
                return False, f"{(B, H, L)}: {d}"
        return True

    def ind_values():
        for B, H, T in [(2, 3, 4), (1, 2, 1), (3, 5, 6)]:
            p = pat(B, H, 2 * T)
            ok, d = close(m.induction_score(p, T), ref.ind_score(p, T))
            if not ok:
                return False, f"{(B, H, T)}: {d}"
        return True

    def dtypes():
        p = pat(2, 3, 6, torch.float32)
        a, b = m.previous_token_score(p), m.induction_score(p, 3)
        p64 = pat(2, 3, 6)
        a2, b2 = m.previous_token_score(p64), m.induction_score(p64, 3)
        return all(t.dtype == d for t, d in [(a, torch.float32), (b, torch.float32), (a2, F64), (b2, F64)])

    def errors():
        bad = [lambda: m.previous_token_score(torch.rand(2, 4, 4)), lambda: m.previous_token_score(torch.rand(1, 2, 4, 5)),
               lambda: m.previous_token_score(torch.rand(1, 2, 1, 1)), lambda: m.induction_score(torch.rand(1, 2, 6, 6), 2),
               lambda: m.induction_score(torch.rand(2, 6, 6), 3), lambda: m.find_heads([torch.rand(1, 2, 5, 5)])]
        for i, f in enumerate(bad):
            try:
                f()
                return False, f"case {i}: no ValueError"
            except ValueError:
                pass
        return True

    def heads():
        T, L = 4, 8
        B, H = 2, 3
        p0 = torch.full((B, H, L, L), 0.0, dtype=F64)
        p0[:, :, :, 0] = 1.0
        for i in range(1, L):
            p0[:, 1, i] = 0.0
            p0[:, 1, i, i - 1] = 1.0  # layer 0 head 1: previous-token
        p1 = torch.full((B, H, L, L), 0.0, dtype=F64)
        p1[:, :, :, 0] = 1.0
        for i in range(T, L):
            p1[:, 2, i] = 0.0
            p1[:, 2, i, i - T + 1] = 1.0  # layer 1 head 2: induction
        got = m.find_heads([p0, p1])
        want = {"previous_token": [(0, 1)], "induction": [(1, 2)]}
        if got != want:
            return False, f"{got}"
        for lst in got.values():
            for tup in lst:
                if type(tup) is not tuple or any(type(x) is not int for x in tup):
                    return False, f"not (int, int): {tup!r}"
        empty = m.find_heads([p1[:, :, :, :] * 0 + 1.0 / L])
        return empty == {"previous_token": [], "induction": []}, f"{empty}"

    def threshold_strict():
        L = 6
        p = torch.zeros(1, 2, L, L, dtype=F64)
        p[..., 0] = 0.5
        for i in range(1, L):
            p[0, 0, i, i - 1] += 0.5  # head 0 previous-token score exactly 0.5 (query 1 gets 1.0... fix below)
        p[0, 0, 1, 0] = 0.5
        s = m.previous_token_score(p)[0].item()
        if abs(s - 0.5) > 1e-12:
            return False, f"setup score {s}"
        got = m.find_heads([p], threshold=0.5)
        return got["previous_token"] == [], f"{got}"

    for n, f in [("tokens", tokens), ("reproducible", reproducible), ("prev_values", prev_values),
                 ("ind_values", ind_values), ("dtypes", dtypes), ("errors", errors), ("heads", heads),
                 ("threshold_strict", threshold_strict)]:
        c.run(n, f)


# ------------------------------------------------------------------ exercise 10
def ex10(m, c):
    def cost():
        for L, d in [(1, 1), (1024, 768), (7, 3)]:
            got = m.attention_cost(L, d)
            want = {"core_attention": 4 * L * L * d, "projections": 8 * L * d * d, "feed_forward": 16 * L * d * d}
            if got != want or any(type(v) is not int for v in got.values()):
                return False, f"{got}"
        for d, want in [(768, 4608), (4096, 24576), (1, 6)]:
            got = m.crossover_length(d)
            if type(got) is not int or got != want:
                return False, f"crossover({d}) = {got!r}"
        return True

    def online():
        xs = [rnd(3, 17) * 3, rnd(2, 3, 5), rnd(4, 1),
              torch.tensor([[1e4, -1e4, 3.0, 2.0, 1e4 - 1], [-1e4, -1e4 + 2, -1e4 + 1, -1e4, -1e4],
                            [float("-inf")] * 5, [0.0, float("-inf"), 1.0, float("-inf"), 2.0]], dtype=F64),
              torch.tensor([[1.0, 3.0, 2.0]], dtype=F64), torch.tensor([[1e4, 0.0, -1e4]], dtype=F64),
              torch.linspace(-5, 5, 10, dtype=F64)[None]]
        for x in xs:
            for bs in [1, 2, 3, 4, 16, 100]:
                with no_torch_softmax():
                    out = m.online_softmax(x, bs)
                ok, d = close(out, ref.softmax(x, -1))
                if not ok:
                    return False, f"shape {tuple(x.shape)} block {bs}: {d}"
        return True

    def tiled_cases():
        return [(rnd(6, 4), rnd(6, 4), rnd(6, 3), False), (rnd(6, 4), rnd(6, 4), rnd(6, 3), True),
                (rnd(2, 3, 4, 8), rnd(2, 3, 9, 8), rnd(2, 3, 9, 5), True),   # L_q < L_k (KV-cache style)
                (rnd(2, 7, 4), rnd(2, 4, 4), rnd(2, 4, 6), True),             # L_q > L_k: 3 queries see nothing
                (rnd(2, 5, 4) * 6, rnd(2, 11, 4) * 6, rnd(2, 11, 3), False),
                (rnd(1, 13, 4), rnd(1, 13, 4), rnd(1, 13, 4), True)]

    def mask_for(q, k, causal):
        return ref.shifted_causal(q.shape[-2], k.shape[-2]) if causal else None

    def tiled_values():
        for q, k, v, causal in tiled_cases():
            want = ref.attention(q, k, v, mask_for(q, k, causal))[0]
            for bs in [1, 2, 3, 4, 5, 64]:
                with no_torch_softmax():
                    out = m.tiled_attention(q, k, v, bs, causal=causal)
                ok, d = close(out, want)
                if not ok:
                    return False, f"q{tuple(q.shape)} k{tuple(k.shape)} causal={causal} block={bs}: {d}"
        return True

    def tiled_grads():
        for q, k, v, causal in tiled_cases()[1:4]:
            a = [t.clone().requires_grad_(True) for t in (q, k, v)]
            b = [t.clone().requires_grad_(True) for t in (q, k, v)]
            w = rnd(*q.shape[:-1], v.shape[-1])
            with no_torch_softmax():
                (m.tiled_attention(*a, 3, causal=causal) * w).sum().backward()
            (ref.attention(*b, mask_for(q, k, causal))[0] * w).sum().backward()
            for x, y in zip(a, b):
                if x.grad is None or not torch.isfinite(x.grad).all():
                    return False, f"non-finite grad q{tuple(q.shape)} k{tuple(k.shape)}"
                ok, d = close(x.grad, y.grad)
                if not ok:
                    return False, f"grad {d}"
        return True

    def memory():
        sizes = {}
        for L in [128, 512]:
            q, k, v = rnd(L, 8), rnd(L, 8), rnd(L, 8)
            with Rec() as r:
                m.tiled_attention(q, k, v, 16, causal=True)
            sizes[L] = r.max_numel
        ok = sizes[512] < 8 * sizes[128] and sizes[512] < 512 * 512
        return ok, f"largest tensor {sizes}"

    def dtypes_and_inputs():
        for dt in [torch.float32, torch.bfloat16]:
            q, k, v = rnd(2, 5, 4, dtype=dt), rnd(2, 7, 4, dtype=dt), rnd(2, 7, 3, dtype=dt)
            x = rnd(3, 9, dtype=dt)
            cp = [t.clone() for t in (q, k, v, x)]
            with no_torch_softmax():
                o = m.tiled_attention(q, k, v, 3, causal=True)
                s = m.online_softmax(x, 4)
            if o.dtype != dt or s.dtype != dt:
                return False, f"{dt} -> {o.dtype}, {s.dtype}"
            if not all(torch.equal(a, b) for a, b in zip((q, k, v, x), cp)):
                return False, "input changed"
            ok, d = close(o, ref.attention(q.double(), k.double(), v.double(), ref.shifted_causal(5, 7))[0], rtol=5e-2, atol=5e-2)
            if not ok:
                return False, f"{dt}: {d}"
        return True

    def device():
        with no_torch_softmax():
            o = m.tiled_attention(dev(rnd(5, 4)), dev(rnd(7, 4)), dev(rnd(7, 3)), 3, causal=True)
            s = m.online_softmax(dev(rnd(3, 9)), 4)
        return on_dev(o) and on_dev(s)

    for n, f in [("cost", cost), ("online_softmax", online), ("tiled_values", tiled_values), ("tiled_grads", tiled_grads),
                 ("memory_linear", memory), ("dtypes_inputs", dtypes_and_inputs), ("device", device)]:
        c.run(n, f, meta_inconclusive=(n == "device"))


EX = {1: ex1, 2: ex2, 3: ex3, 4: ex4, 5: ex5, 6: ex6, 7: ex7, 8: ex8, 9: ex9, 10: ex10}


def load(path):
    name = "corpus_" + re.sub(r"\W", "_", os.path.relpath(path, CORPUS))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv):
    wanted = {int(a.replace("exercise", "")) for a in argv} or set(EX)
    bad = 0
    counts = {}
    for n in sorted(wanted):
        for path in sorted(glob.glob(f"{CORPUS}/exercise{n}/*.py")):
            kind = "honest" if os.path.basename(path).startswith("honest_") else "wrong"
            counts[(n, kind)] = counts.get((n, kind), 0) + 1
            c = Checker()
            try:
                EX[n](load(path), c)
            except Exception:  # noqa: BLE001
                c.results.append(("load", False, traceback.format_exc(limit=1)))
            fails = [(nm, d) for nm, ok, d in c.results if not ok]
            incon = [nm for nm, ok, d in c.results if ok and d.startswith("inconclusive")]
            good = (not fails) if kind == "honest" else bool(fails)
            bad += not good
            tag = "OK " if good else "BAD"
            desc = "all pass" if not fails else "; ".join(f"{nm}: {d}" for nm, d in fails)
            extra = f"  [inconclusive: {','.join(incon)}]" if incon else ""
            print(f"{tag} ex{n} {os.path.basename(path):40s} {desc[:230]}{extra}")
    print("counts:", {f"ex{n} {k}": v for (n, k), v in sorted(counts.items())})
    print("device for device checks:", DEV, "| files not behaving as labelled:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
