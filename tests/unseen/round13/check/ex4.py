import torch
from common import *


def ref_causal(L):
    i = torch.arange(L)
    return i[:, None] >= i[None, :]


def ref_pad(lengths, L):
    return (torch.arange(L)[None, :] < lengths[:, None])[:, None, :]


def run(mod):
    c = Checker()

    def causal_values():
        for L in (1, 2, 3, 7):
            m = mod.causal_mask(L)
            assert m.dtype == torch.bool, f"dtype {m.dtype}"
            assert m.shape == (L, L) and torch.equal(m, ref_causal(L)), f"L={L}: wrong pattern"
            assert m.device.type == "cpu"
            s = g(L, L)
            mod.apply_mask(s, m)  # must combine with apply_mask (~mask)
    c.check("causal_values", causal_values)

    def causal_device():
        m = mod.causal_mask(4, device="meta")
        assert m.device.type == "meta", f"device {m.device}"
        m = mod.causal_mask(4, device=torch.device("meta"))
        assert m.device.type == "meta", f"device {m.device}"
    c.check("causal_device", causal_device)

    def apply_values():
        s = g(2, 4, 5)
        for mask in (ref_causal(5)[:4], torch.tensor([[True, False, True, True, False]] * 2)[:, None, :],
                     torch.zeros(4, 5, dtype=torch.bool)):
            got = mod.apply_mask(s, mask)
            exp = s.masked_fill(~mask, float("-inf"))
            assert_dtype_device(got, s.dtype, "cpu")
            assert got.shape == exp.shape and torch.equal(got, exp), "values differ from masked_fill(~mask, -inf)"
    c.check("apply_values", apply_values)

    def apply_unchanged():
        s = g(2, 4, 5); b = snapshot(s)
        out = mod.apply_mask(s, ref_causal(5)[:4])
        assert_unchanged(b, [s])
        assert out is not s
    c.check("apply_unchanged", apply_unchanged)

    def apply_dtypes():
        s = g(2, 4, 5); m = ref_causal(5)[:4]
        for dt in DTYPES_LOW:
            got = mod.apply_mask(s.to(dt), m)
            assert_dtype_device(got, dt, "cpu")
            exp = s.to(dt).masked_fill(~m, float("-inf"))
            assert torch.equal(got, exp), f"{dt}: values differ"
        got = mod.apply_mask(*meta(s, m))
        assert_dtype_device(got, torch.float64, "meta")
    c.check("apply_dtypes", apply_dtypes)

    def apply_grad():
        m = ref_causal(5)[:4]
        s = g(2, 4, 5).requires_grad_(True)
        out = mod.apply_mask(s, m)
        w = g(2, 4, 5)
        (torch.where(torch.isfinite(out), out, 0) * w).sum().backward()
        assert s.grad is not None and torch.equal(s.grad, torch.where(m, w, 0)), "wrong gradient"
    c.check("apply_grad", apply_grad)

    def padding_values():
        for lengths, L in ((torch.tensor([3, 0, 5]), 5), (torch.tensor([2, 4]), 6), (torch.tensor([1]), 1)):
            b = snapshot(lengths)
            got = mod.padding_mask(lengths, L)
            assert got.dtype == torch.bool, f"dtype {got.dtype}"
            exp = ref_pad(lengths, L)
            assert got.shape == exp.shape, f"shape {tuple(got.shape)} != {tuple(exp.shape)}"
            assert torch.equal(got, exp), "wrong values"
            assert_unchanged(b, [lengths])
    c.check("padding_values", padding_values)

    def padding_device():
        got = mod.padding_mask(torch.tensor([3, 1]).to("meta"), 4)
        assert got.device.type == "meta" and got.shape == (2, 1, 4) and got.dtype == torch.bool
    c.check("padding_device", padding_device)
    return c.results
