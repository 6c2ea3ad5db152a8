"""Shared helpers for the honest-solution checks (my own naive float64 references, from the chapter)."""

import importlib.util
import math
import pathlib
import sys
import traceback

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
TOL = {torch.float64: 1e-9, torch.float32: 2e-5, torch.float16: 3e-2, torch.bfloat16: 8e-2}


def load(path):
    name = "sol_" + path.parent.name + "_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def files(ex):
    return sorted((ROOT / f"exercise{ex}").glob("*.py"))


class Report:
    def __init__(self):
        self.fails = 0
        self.passes = 0

    def check(self, cond, msg):
        if cond:
            self.passes += 1
        else:
            self.fails += 1
            print("    FAIL:", msg)

    def close(self, got, want, msg, tol=None):
        if tol is None:
            tol = TOL.get(got.dtype, 1e-5)
        if got.shape != want.shape:
            self.check(False, f"{msg}: shape {tuple(got.shape)} != {tuple(want.shape)}")
            return
        g, w = got.detach().double(), want.detach().double()
        if not torch.isfinite(g).all():
            self.check(False, f"{msg}: non-finite values")
            return
        err = (g - w).abs().max().item() if g.numel() else 0.0
        scale = max(1.0, w.abs().max().item() if w.numel() else 0.0)
        self.check(err <= tol * scale, f"{msg}: max err {err:.3g} > {tol * scale:.3g}")


def run(name, fn, rep):
    try:
        fn(rep)
    except Exception:  # noqa: BLE001
        rep.fails += 1
        print(f"    EXCEPTION in {name}:")
        traceback.print_exc(file=sys.stdout)


# ---------------- naive float64 references (loops over rows, straight from the chapter's maths) ---


def ref_softmax_rows(x):
    """x (..., n) float64 -> softmax over last dim; a row that is all -inf gives zeros. Pure loops."""
    flat = x.reshape(-1, x.shape[-1])
    out = torch.zeros_like(flat)
    for r in range(flat.shape[0]):
        row = flat[r].tolist()
        finite = [s for s in row if s != -math.inf]
        if not finite:
            continue
        mx = max(finite)
        e = [math.exp(s - mx) if s != -math.inf else 0.0 for s in row]
        tot = sum(e)
        out[r] = torch.tensor([t / tot for t in e], dtype=torch.float64)
    return out.reshape(x.shape)


def ref_softmax_autograd(x):
    """Differentiable float64 reference softmax over dim -1 (dead rows -> 0, grads 0)."""
    if x.shape[-1] == 0:
        return x * 0
    dead = torch.isneginf(x).all(-1, keepdim=True)
    xs = torch.where(dead, torch.zeros_like(x), x)
    m = xs.max(-1, keepdim=True).values
    e = torch.exp(xs - m)
    e = torch.where(torch.isneginf(x), torch.zeros_like(e), e)
    s = e.sum(-1, keepdim=True)
    y = e / torch.where(s == 0, torch.ones_like(s), s)
    return torch.where(dead, torch.zeros_like(y), y)


def ref_attention(q, k, v, mask=None):
    """Differentiable float64 reference: softmax(QKᵀ/√d) V, mask True = may attend, dead rows -> 0."""
    s = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(q.shape[-1])
    if mask is not None:
        s = torch.where(mask, s, torch.full_like(s, -math.inf))
    w = ref_softmax_autograd(s)
    return torch.einsum("...ij,...jd->...id", w, v), w


def ref_causal_mask(L_q, L_k, device=None):
    """Query i at position L_k - L_q + i sees keys 0 .. L_k - L_q + i."""
    i = torch.arange(L_q).unsqueeze(1) + (L_k - L_q)
    j = torch.arange(L_k).unsqueeze(0)
    return j <= i


def ref_gqa(x, wq, wk, wv, wo, H, Hkv, mask=None):
    """Grouped-query attention by explicit per-head loop; weights in nn.Linear layout (out, in)."""
    B, L, D = x.shape
    dh = D // H
    q = x @ wq.T
    k = x @ wk.T
    v = x @ wv.T
    if mask is None:
        mask = ref_causal_mask(L, L)
    mask = mask.broadcast_to(B, H, L, L)
    heads = []
    for h in range(H):
        g = h // (H // Hkv)
        qh = q[:, :, h * dh:(h + 1) * dh]
        kh = k[:, :, g * dh:(g + 1) * dh]
        vh = v[:, :, g * dh:(g + 1) * dh]
        o, _ = ref_attention(qh, kh, vh, mask[:, h])
        heads.append(o)
    return torch.cat(heads, dim=-1) @ wo.T
