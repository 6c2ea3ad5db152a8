import torch
from common import *
from attn_ref import *


def run(mod):
    c = Checker()

    def bytes_():
        assert mod.kv_cache_bytes(32, 32, 128, 4096) == 2_147_483_648
        got = mod.kv_cache_bytes(2, 3, 5, 7, batch_size=11, bytes_per_value=4)
        assert got == 2 * 2 * 3 * 5 * 7 * 11 * 4 and isinstance(got, int), got
        assert mod.kv_cache_bytes(1, 1, 1, 1) == 4
    c.check("bytes", bytes_)

    def cache_basic():
        for dt in (torch.float64, torch.float32, torch.float16):
            cch = mod.KVCache(2, 3, 4, 10, dtype=dt)
            assert len(cch) == 0
            k1, v1 = g(2, 3, 3, 4).to(dt), g(2, 3, 3, 4).to(dt)
            b = snapshot(k1, v1)
            K, Vv = cch.update(k1, v1)
            assert len(cch) == 3 and K.shape == (2, 3, 3, 4)
            assert_dtype_device(K, dt, "cpu"); assert_dtype_device(Vv, dt, "cpu")
            k2, v2 = torch.zeros(2, 3, 2, 4, dtype=dt), torch.zeros(2, 3, 2, 4, dtype=dt)
            K, Vv = cch.update(k2, v2)
            assert len(cch) == 5, f"len {len(cch)} after zero keys"
            assert torch.equal(K, torch.cat([b[0], k2], 2)) and torch.equal(Vv, torch.cat([b[1], v2], 2))
            assert_unchanged(b, [k1, v1])
        cch = mod.KVCache(1, 2, 4, 6, dtype=torch.float64, device="meta")
        K, Vv = cch.update(*meta(g(1, 2, 2, 4), g(1, 2, 2, 4)))
        assert_dtype_device(K, torch.float64, "meta")
    c.check("cache_basic", cache_basic)

    def cache_overflow():
        cch = mod.KVCache(1, 2, 4, 5, dtype=torch.float64)
        cch.update(g(1, 2, 3, 4), g(1, 2, 3, 4))
        K, _ = cch.update(g(1, 2, 2, 4), g(1, 2, 2, 4))  # exactly full
        assert len(cch) == 5 and K.shape[2] == 5
        snap = K.clone()
        try:
            cch.update(g(1, 2, 1, 4), g(1, 2, 1, 4))
            raise AssertionError("no ValueError past max_len")
        except ValueError:
            pass
        assert len(cch) == 5, f"len changed to {len(cch)} by a failed update"
        cch2 = mod.KVCache(1, 2, 4, 5, dtype=torch.float64)
        cch2.update(g(1, 2, 4, 4), g(1, 2, 4, 4))
        try:
            cch2.update(g(1, 2, 2, 4), g(1, 2, 2, 4))
            raise AssertionError("no ValueError")
        except ValueError:
            pass
        assert len(cch2) == 4, f"len changed to {len(cch2)} by a failed update"
    c.check("cache_overflow", cache_overflow)

    def cache_views():
        cch = mod.KVCache(1, 2, 4, 8, dtype=torch.float64)
        K1, V1 = cch.update(g(1, 2, 2, 4), g(1, 2, 2, 4))
        K2, V2 = cch.update(g(1, 2, 3, 4), g(1, 2, 3, 4))
        assert K1.untyped_storage().data_ptr() == K2.untyped_storage().data_ptr(), "update returns copies, not views of one storage"
        assert V1.untyped_storage().data_ptr() == V2.untyped_storage().data_ptr(), "values are copies"
    c.check("cache_views", cache_views)

    def cache_reset():
        cch = mod.KVCache(1, 2, 4, 8, dtype=torch.float64)
        K1, _ = cch.update(g(1, 2, 5, 4), g(1, 2, 5, 4))
        cch.reset()
        assert len(cch) == 0
        k = g(1, 2, 3, 4)
        K2, _ = cch.update(k, g(1, 2, 3, 4))
        assert len(cch) == 3 and torch.equal(K2, k)
        assert K1.untyped_storage().data_ptr() == K2.untyped_storage().data_ptr(), "reset allocated new storage"
        cch.update(g(1, 2, 5, 4), g(1, 2, 5, 4))  # room for max_len again
    c.check("cache_reset", cache_reset)

    def make(D=16, H=4, Hkv=2):
        m = mod.CachedGroupedQueryAttention(D, H, Hkv).double()
        dh = D // H
        sd = {"q_proj.weight": g(H * dh, D) * 0.5, "k_proj.weight": g(Hkv * dh, D) * 0.5,
              "v_proj.weight": g(Hkv * dh, D) * 0.5, "o_proj.weight": g(D, H * dh) * 0.5}
        m.load_state_dict(sd)
        return m, sd

    def ref_of(sd, x, H=4, Hkv=2):
        return ref_gqa(x, sd["q_proj.weight"], sd["k_proj.weight"], sd["v_proj.weight"], sd["o_proj.weight"], H, Hkv)

    def cached_chunks():
        for (D, H, Hkv) in ((16, 4, 2), (16, 8, 1), (12, 3, 3)):
            m, sd = make(D, H, Hkv)
            x = g(2, 9, D); b = snapshot(x)
            assert_close(m(x), ref_of(sd, x, H, Hkv), 1e-10, "cache=None")
            cch = mod.KVCache(2, Hkv, D // H, 12, dtype=torch.float64)
            outs, s = [], 0
            for n in (3, 1, 5):
                outs.append(m(x[:, s:s + n], cch)); s += n
                assert len(cch) == s
            assert_close(torch.cat(outs, 1), ref_of(sd, x, H, Hkv), 1e-10, "chunks 3,1,5")
            assert_unchanged(b, [x])
    c.check("cached_chunks", cached_chunks)

    def cached_grad():
        m, sd = make()
        w = g(2, 5, 16, seed=7)
        for use_cache in (False, True):
            m.zero_grad()
            x = g(2, 5, 16, seed=3).requires_grad_(True)
            cch = mod.KVCache(2, 2, 4, 8, dtype=torch.float64) if use_cache else None
            (m(x, cch) * w).sum().backward()
            xs = x.detach().clone().requires_grad_(True)
            ps = {k: v.clone().requires_grad_(True) for k, v in sd.items()}
            (ref_of(ps, xs) * w).sum().backward()
            assert_close(x.grad, xs.grad, 1e-8, f"dx cache={use_cache}")
            for k in ("k_proj.weight", "v_proj.weight"):
                gg = dict(m.named_parameters())[k].grad
                assert gg is not None, f"{k}: no gradient (cache={use_cache})"
                assert_close(gg, ps[k].grad, 1e-8, f"{k} cache={use_cache}")
    c.check("cached_grad", cached_grad)

    def cached_device():
        m, sd = make()
        m = m.to("meta")
        cch = mod.KVCache(2, 2, 4, 8, dtype=torch.float64, device="meta")
        out = m(g(2, 3, 16).to("meta"), cch)
        assert_dtype_device(out, torch.float64, "meta")
        m2, _ = make()
        m2 = m2.to(torch.float32)
        cch = mod.KVCache(2, 2, 4, 8, dtype=torch.float32)
        assert_dtype_device(m2(g(2, 3, 16).float(), cch), torch.float32, "cpu")
    c.check("cached_device", cached_device)
    return c.results
