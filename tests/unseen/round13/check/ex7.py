import torch
from common import *
from attn_ref import *


def run(mod):
    c = Checker()

    def repeat_values():
        x = g(2, 3, 4, 5); b = snapshot(x)
        for r in (1, 2, 3):
            got = mod.repeat_kv(x, r)
            assert_close(got, x.repeat_interleave(r, 1), what=f"n_rep={r}")
            assert_dtype_device(got, x.dtype, "cpu")
        assert_unchanged(b, [x])
        for dt in DTYPES_LOW:
            assert_dtype_device(mod.repeat_kv(x.to(dt), 2), dt, "cpu")
        assert_dtype_device(mod.repeat_kv(x.to("meta"), 2), torch.float64, "meta")
        xi = torch.arange(2 * 2 * 3 * 1).view(2, 2, 3, 1)
        assert torch.equal(mod.repeat_kv(xi, 3), xi.repeat_interleave(3, 1)), "int tensor"
    c.check("repeat_values", repeat_values)

    def make(D=16, H=8, Hkv=2):
        m = mod.GroupedQueryAttention(D, H, Hkv).double()
        dh = D // H
        sd = {"q_proj.weight": g(H * dh, D) * 0.5, "k_proj.weight": g(Hkv * dh, D) * 0.5,
              "v_proj.weight": g(Hkv * dh, D) * 0.5, "o_proj.weight": g(D, H * dh) * 0.5}
        m.load_state_dict(sd)
        return m, sd

    def ref_of(sd, x, H, Hkv, mask=None):
        return ref_gqa(x, sd["q_proj.weight"], sd["k_proj.weight"], sd["v_proj.weight"], sd["o_proj.weight"], H, Hkv, mask)

    def state_dict():
        for (D, H, Hkv) in ((16, 8, 2), (12, 4, 1), (12, 4, 4)):
            m = mod.GroupedQueryAttention(D, H, Hkv)
            sd = m.state_dict()
            assert set(sd) == {"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"}, sorted(sd)
            assert tuple(sd["k_proj.weight"].shape) == (Hkv * D // H, D), f"k_proj {tuple(sd['k_proj.weight'].shape)}"
            make(D, H, Hkv)
    c.check("state_dict", state_dict)

    def gqa_values():
        for (D, H, Hkv) in ((16, 8, 2), (12, 4, 1), (12, 4, 4), (16, 4, 2), (18, 6, 3)):
            m, sd = make(D, H, Hkv)
            x = g(2, 5, D); b = snapshot(x)
            assert_close(m(x), ref_of(sd, x, H, Hkv), 1e-10, f"{(D, H, Hkv)} causal")
            pad = torch.tensor([[True] * 5, [True, True, True, False, False]])[:, None, None, :]
            assert_close(m(x, pad), ref_of(sd, x, H, Hkv, pad), 1e-10, f"{(D, H, Hkv)} padding")
            assert_unchanged(b, [x])
    c.check("gqa_values", gqa_values)

    def gqa_padding():
        m, sd = make()
        x = g(2, 5, 16)
        pad = torch.tensor([[True] * 5, [False] * 5])[:, None, None, :]
        got = m(x, pad)
        assert torch.isfinite(got).all(), "NaN output"
        assert_close(got, ref_of(sd, x, 8, 2, pad))
        xg = x.clone().requires_grad_(True)
        m(xg, pad).sum().backward()
        assert torch.isfinite(xg.grad).all(), "NaN gradient w.r.t. x"
        assert all(torch.isfinite(p.grad).all() for p in m.parameters()), "NaN parameter gradient"
    c.check("gqa_padding", gqa_padding)

    def gqa_grad():
        m, sd = make()
        x = g(2, 5, 16).requires_grad_(True)
        w = g(2, 5, 16, seed=7)
        (m(x) * w).sum().backward()
        xs = x.detach().clone().requires_grad_(True)
        ps = {k: v.clone().requires_grad_(True) for k, v in sd.items()}
        (ref_of(ps, xs, 8, 2) * w).sum().backward()
        assert_close(x.grad, xs.grad, 1e-8, "dx")
        for k in ("k_proj.weight", "q_proj.weight"):
            assert_close(dict(m.named_parameters())[k].grad, ps[k].grad, 1e-8, k)
    c.check("gqa_grad", gqa_grad)

    def gqa_dtypes():
        m, sd = make()
        x = g(2, 5, 16)
        exp = ref_of(sd, x, 8, 2)
        for dt in (torch.float32, torch.bfloat16):
            got = m.to(dt)(x.to(dt))
            assert_dtype_device(got, dt, "cpu"); assert_close(got, exp, TOL[dt] * 10)
        got = m.to("meta")(x.to("meta"))
        assert_dtype_device(got, torch.float64, "meta")
    c.check("gqa_dtypes", gqa_dtypes)
    return c.results
