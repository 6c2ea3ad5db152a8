import torch
from torch.utils._python_dispatch import TorchDispatchMode
from common import Report, files, load, ref_gqa, run

torch.manual_seed(8)

ALLOC_WORDS = ("empty", "zeros", "ones", "full", "cat", "stack", "clone", "arange", "new_", "_to_copy", "rand")


class OpLog(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []
        self.dtypes = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.is_floating_point():
                self.dtypes.add(o.dtype)
        return out


def ws_of(m):
    return [m.q_proj.weight, m.k_proj.weight, m.v_proj.weight, m.o_proj.weight]


def checks(mod):
    def t(rep):
        rep.check(mod.kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648, "llama-2 7B = 2 GiB")
        rep.check(type(mod.kv_cache_bytes(1, 1, 1, 1)) is int and mod.kv_cache_bytes(1, 1, 1, 1) == 4, "bytes int / default fp16")
        rep.check(mod.kv_cache_bytes(2, 3, 5, 7, 11, 4) == 2 * 2 * 3 * 5 * 7 * 11 * 4, "bytes all args")

        for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            c = mod.KVCache(2, 3, 4, 8, dtype=dt)
            rep.check(len(c) == 0, "empty len")
            k1, v1 = torch.randn(2, 3, 5, 4).to(dt), torch.randn(2, 3, 5, 4).to(dt)
            k1c, v1c = k1.clone(), v1.clone()
            with OpLog() as log:
                K, V = c.update(k1, v1)
            bad = [o for o in log.ops if any(w in o for w in ALLOC_WORDS)]
            rep.check(not bad, f"update allocates: {bad}")
            rep.check(torch.equal(k1, k1c) and torch.equal(v1, v1c), "update changed k, v")
            rep.check(len(c) == 5 and K.shape == (2, 3, 5, 4) and K.dtype == dt, "after 5")
            rep.check(torch.equal(K, k1) and torch.equal(V, v1), "values stored")
            ptr_k, ptr_v = K.untyped_storage().data_ptr(), V.untyped_storage().data_ptr()
            try:
                c.update(torch.zeros(2, 3, 4, 4, dtype=dt), torch.zeros(2, 3, 4, 4, dtype=dt))
                rep.check(False, "overflow did not raise")
            except ValueError:
                rep.check(len(c) == 5, "overflow changed len")
            k2 = torch.zeros(2, 3, 3, 4, dtype=dt)  # zero keys count as tokens
            K2, V2 = c.update(k2, k2 + 1)
            rep.check(len(c) == 8 and torch.equal(K2[:, :, :5], k1) and torch.equal(K2[:, :, 5:], k2), "append 3")
            rep.check(torch.equal(V2[:, :, 5:], k2 + 1) and torch.equal(V2[:, :, :5], v1), "values append")
            rep.check(K2.untyped_storage().data_ptr() == ptr_k and V2.untyped_storage().data_ptr() == ptr_v, "views of one storage")
            with OpLog() as log:
                c.reset()
            rep.check(len(c) == 0 and not [o for o in log.ops if any(w in o for w in ALLOC_WORDS)], "reset")
            K3, _ = c.update(k2[:, :, :1], k2[:, :, :1])
            rep.check(len(c) == 1 and K3.shape[2] == 1 and K3.untyped_storage().data_ptr() == ptr_k, "reuse after reset")

        for H, Hkv in ((4, 2), (4, 4), (4, 1)):
            D, B = 16, 2
            torch.manual_seed(H + Hkv)
            m = mod.CachedGroupedQueryAttention(D, H, Hkv).double()
            x = torch.randn(B, 9, D, dtype=torch.float64)
            want = ref_gqa(x, *[w.detach() for w in ws_of(m)], H, Hkv)
            cache = mod.KVCache(B, Hkv, D // H, 12, dtype=torch.float64)
            outs, s = [], 0
            with torch.no_grad():
                for n in (3, 1, 5):
                    outs.append(m(x[:, s:s + n], cache))
                    s += n
            rep.check(len(cache) == 9, "cache len after chunks")
            rep.close(torch.cat(outs, 1), want, f"chunks 3,1,5 H={H} Hkv={Hkv}")
            with torch.no_grad():
                rep.close(m(x, None), want, f"cache=None H={H} Hkv={Hkv}")
                rep.check(m(x[:, :0], None).shape == (B, 0, D), "T_new = 0 without cache")
            # gradients: cache=None and an empty cache
            for use_cache in (False, True):
                xg = x.clone().requires_grad_(True)
                g = torch.randn_like(x)
                c = mod.KVCache(B, Hkv, D // H, 12, dtype=torch.float64) if use_cache else None
                with OpLog() as log:
                    y = m(xg, c)
                rep.check(log.dtypes == {torch.float64}, f"float64 all the way: {log.dtypes}")
                (y * g).sum().backward()
                gx, gws = xg.grad.clone(), [w.grad.clone() for w in ws_of(m)]
                m.zero_grad(set_to_none=True)
                xr = x.clone().requires_grad_(True)
                wr = [w.detach().clone().requires_grad_(True) for w in ws_of(m)]
                (ref_gqa(xr, *wr, H, Hkv) * g).sum().backward()
                rep.close(y, want, "grad-run out")
                rep.close(gx, xr.grad, f"dx cache={use_cache}", tol=1e-9)
                for a, b, nm in zip(gws, wr, "qkvo"):
                    rep.close(a, b.grad, f"d{nm}_proj cache={use_cache}", tol=1e-9)
            # low precision chunked
            for dt in (torch.float32, torch.float16, torch.bfloat16):
                m2 = mod.CachedGroupedQueryAttention(D, H, Hkv)
                m2.load_state_dict({k: v.float() for k, v in m.state_dict().items()})
                m2 = m2.to(dt)
                xx = x.to(dt)
                cache = mod.KVCache(B, Hkv, D // H, 9, dtype=dt)
                with torch.no_grad():
                    y = torch.cat([m2(xx[:, :4], cache), m2(xx[:, 4:5], cache), m2(xx[:, 5:], cache)], 1)
                rep.check(y.dtype == dt, "dtype")
                rep.close(y, ref_gqa(xx.double(), *[w.detach().to(dt).double() for w in ws_of(m)], H, Hkv), f"chunked {dt}")
    return t


rep = Report()
for f in files(8):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise8: {rep.passes} checks passed, {rep.fails} failed")
