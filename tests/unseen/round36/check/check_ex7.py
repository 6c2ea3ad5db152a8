import torch
from common import DTYPES, Report, files, load, ref_gqa, run

torch.manual_seed(7)


def sd_tensors(m):
    return [m.q_proj.weight, m.k_proj.weight, m.v_proj.weight, m.o_proj.weight]


def checks(mod):
    def t(rep):
        for dt in DTYPES:
            x = torch.randn(2, 5, 3, 4).to(dt).transpose(1, 2)  # (B=2, H_kv=3, L=5, d=4), non-contiguous
            x0 = x.clone()
            for n_rep in (1, 2, 3):
                r = mod.repeat_kv(x, n_rep)
                rep.check(r.shape == (2, 3 * n_rep, 5, 4), "repeat shape")
                want = torch.stack([x[:, j // n_rep] for j in range(x.shape[1] * n_rep)], 1)
                rep.check(r.dtype == dt and torch.equal(r, want), f"repeat_kv order n_rep={n_rep} {dt}")
            rep.check(torch.equal(x, x0), "repeat_kv changed x")
        for H, Hkv in ((4, 4), (4, 2), (4, 1), (6, 2)):
            D = 12
            torch.manual_seed(H * 10 + Hkv)
            m = mod.GroupedQueryAttention(D, H, Hkv)
            rep.check(set(m.state_dict()) == {"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight"}, "state keys")
            rep.check(m.k_proj.weight.shape == (Hkv * D // H, D) and m.k_proj.bias is None, "k_proj shape/bias")
            m = m.double()
            B, L = 2, 5
            x = torch.randn(B, L, D, dtype=torch.float64, requires_grad=True)
            pad = torch.ones(B, 1, L, L, dtype=torch.bool)
            pad[1] = False
            pad[0, 0, 1, 2:] = False
            full = torch.rand(B, H, L, L) > 0.3
            full[0, 1, 3] = False
            for mask in (None, pad, full, torch.ones(L, L, dtype=torch.bool)):
                g = torch.randn(B, L, D, dtype=torch.float64)
                y = m(x, mask)
                rep.check(y.dtype == torch.float64, "float64 out")
                (y * g).sum().backward()
                gx = x.grad.clone()
                gws = [w.grad.clone() for w in sd_tensors(m)]
                x.grad = None
                m.zero_grad(set_to_none=True)
                ws = [w.detach().clone().requires_grad_(True) for w in sd_tensors(m)]
                yr = ref_gqa(x, *ws, H, Hkv, mask)
                (yr * g).sum().backward()
                tag = f"H={H} Hkv={Hkv} mask={None if mask is None else tuple(mask.shape)}"
                rep.close(y, yr, "gqa out " + tag)
                rep.close(gx, x.grad, "gqa dx " + tag, tol=1e-9)
                for a, w, nm in zip(gws, ws, ("q", "k", "v", "o")):
                    rep.close(a, w.grad, f"gqa d{nm}_proj " + tag, tol=1e-9)
                x.grad = None
                if mask is pad:
                    rep.check((y[1] == 0).all().item(), "all-padding sequence gives zeros")
            for dt in (torch.float32, torch.float16, torch.bfloat16):
                m2 = mod.GroupedQueryAttention(D, H, Hkv)
                m2.load_state_dict({k: v.float() for k, v in m.state_dict().items()})
                m2 = m2.to(dt)
                xx = x.detach().to(dt)
                y = m2(xx)
                rep.check(y.dtype == dt, f"dtype {dt}")
                ws = [w.detach().to(dt).double() for w in sd_tensors(m)]
                rep.close(y, ref_gqa(xx.double(), *ws, H, Hkv), f"gqa {dt} H={H} Hkv={Hkv}")
        # float64 all the way: trace dtypes of every op result inside forward
        from torch.utils._python_dispatch import TorchDispatchMode

        class Dtypes(TorchDispatchMode):
            def __init__(self):
                super().__init__()
                self.seen = set()

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                for o in (out if isinstance(out, (tuple, list)) else (out,)):
                    if isinstance(o, torch.Tensor) and o.is_floating_point():
                        self.seen.add(o.dtype)
                return out

        m = mod.GroupedQueryAttention(12, 4, 2).double()
        with Dtypes() as d:
            m(torch.randn(2, 5, 12, dtype=torch.float64))
        rep.check(d.seen == {torch.float64}, f"float64 all the way: saw {d.seen}")
        with torch.no_grad():
            rep.check(mod.GroupedQueryAttention(12, 4, 2)(torch.randn(2, 0, 12)).shape == (2, 0, 12), "L = 0")
            rep.check(mod.GroupedQueryAttention(12, 4, 2)(torch.randn(1, 1, 12)).shape == (1, 1, 12), "L = 1")
    return t


rep = Report()
for f in files(7):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise7: {rep.passes} checks passed, {rep.fails} failed")
