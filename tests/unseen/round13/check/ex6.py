import torch
from common import *
from attn_ref import *


def run(mod):
    c = Checker()

    def split_values():
        x = g(2, 5, 12); b = snapshot(x)
        for H in (1, 3, 4):
            got = mod.split_heads(x, H)
            assert_close(got, split(x, H)); assert_dtype_device(got, x.dtype, "cpu")
        assert_unchanged(b, [x])
        for dt in DTYPES_LOW:
            assert_dtype_device(mod.split_heads(x.to(dt), 3), dt, "cpu")
        assert_dtype_device(mod.split_heads(x.to("meta"), 3), torch.float64, "meta")
    c.check("split_values", split_values)

    def merge_values():
        y = g(2, 5, 3, 4).transpose(1, 2)  # (B, H, L, d) non-contiguous
        b = snapshot(y)
        assert_close(mod.merge_heads(y), merge(y))
        yc = g(2, 3, 5, 4)
        assert_close(mod.merge_heads(yc), merge(yc))
        assert_unchanged(b, [y])
        assert_dtype_device(mod.merge_heads(y.to("meta")), torch.float64, "meta")
        assert_dtype_device(mod.merge_heads(y.to(torch.bfloat16)), torch.bfloat16, "cpu")
    c.check("merge_values", merge_values)

    def make(bias=True, D=12, H=3):
        m = mod.MultiHeadAttention(D, H, bias=bias).double()
        sd = {"qkv.weight": g(3 * D, D) * 0.5, "out.weight": g(D, D) * 0.5}
        if bias:
            sd.update({"qkv.bias": g(3 * D) * 0.1, "out.bias": g(D) * 0.1})
        m.load_state_dict(sd)
        return m, sd

    def ref_of(sd, x, H=3, mask=None):
        return ref_mha(x, sd["qkv.weight"], sd.get("qkv.bias"), sd["out.weight"], sd.get("out.bias"), H, mask)

    def state_dict():
        for bias in (True, False):
            m = mod.MultiHeadAttention(12, 3, bias=bias)
            keys = set(m.state_dict())
            exp = {"qkv.weight", "out.weight"} | ({"qkv.bias", "out.bias"} if bias else set())
            assert keys == exp, f"bias={bias}: state dict keys {sorted(keys)}"
            assert tuple(m.qkv.weight.shape) == (36, 12) and tuple(m.out.weight.shape) == (12, 12)
            make(bias)
    c.check("state_dict", state_dict)

    def mha_values():
        for bias in (True, False):
            m, sd = make(bias)
            x = g(2, 5, 12); b = snapshot(x)
            assert_close(m(x), ref_of(sd, x), 1e-9, "mask=None")
            pad = torch.tensor([[True] * 5, [True, True, True, False, False]])[:, None, None, :]
            assert_close(m(x, pad), ref_of(sd, x, mask=pad), 1e-9, "padding mask")
            full = torch.ones(5, 5, dtype=torch.bool)
            assert_close(m(x, full), ref_of(sd, x, mask=full), 1e-9, "all-True mask")
            assert_unchanged(b, [x])
    c.check("mha_values", mha_values)

    def mha_padding():
        m, sd = make(True)
        x = g(2, 5, 12)
        pad = torch.tensor([[True] * 5, [False] * 5])[:, None, None, :]
        got = m(x, pad)
        assert torch.isfinite(got).all(), "NaN/inf output for an all-padding sequence"
        assert_close(got, ref_of(sd, x, mask=pad))
        assert_close(got[1], sd["out.bias"].expand(5, 12), what="all-padding output is not out.bias")
        xg = x.clone().requires_grad_(True)
        m(xg, pad).sum().backward()
        assert torch.isfinite(xg.grad).all(), "NaN gradient"
        assert all(torch.isfinite(p.grad).all() for p in m.parameters()), "NaN parameter gradient"
    c.check("mha_padding", mha_padding)

    def mha_grad():
        m, sd = make(True)
        x = g(2, 5, 12).requires_grad_(True)
        w = g(2, 5, 12, seed=7)
        (m(x) * w).sum().backward()
        xs = x.detach().clone().requires_grad_(True)
        ps = {k: v.clone().requires_grad_(True) for k, v in sd.items()}
        (ref_of(ps, xs) * w).sum().backward()
        assert_close(x.grad, xs.grad, 1e-8, "dx")
        assert_close(m.qkv.weight.grad, ps["qkv.weight"].grad, 1e-8, "dW_qkv")
        assert_close(m.out.bias.grad, ps["out.bias"].grad, 1e-8, "db_out")
    c.check("mha_grad", mha_grad)

    def mha_dtypes():
        m, sd = make(True)
        x = g(2, 5, 12)
        exp = ref_of(sd, x)
        for dt in (torch.float32, torch.bfloat16):
            got = m.to(dt)(x.to(dt))
            assert_dtype_device(got, dt, "cpu"); assert_close(got, exp, TOL[dt] * 10)
    c.check("mha_dtypes", mha_dtypes)

    def mha_device():
        m, sd = make(True)
        got = m.to("meta")(g(2, 5, 12).to("meta"))
        assert_dtype_device(got, torch.float64, "meta")
    c.check("mha_device", mha_device)
    return c.results
