import math
import torch
from common import *


def ref_scale(s, d):
    return s / math.sqrt(d)


def ref_scaled(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))


def run(mod):
    c = Checker()

    def scale_values():
        for d in (1, 3, 8, 64):
            s = g(2, 5, 7)
            assert_close(mod.scale_scores(s, d), ref_scale(s, d))
    c.check("scale_values", scale_values)

    def scale_unchanged():
        s = g(2, 5, 7); b = snapshot(s)
        out = mod.scale_scores(s, 8)
        assert_unchanged(b, [s])
        assert out is not s, "returned the input itself"
    c.check("scale_unchanged", scale_unchanged)

    def scaled_values():
        for (lq, lk, d) in ((5, 7, 3), (5, 5, 8), (4, 9, 16)):
            q, k = g(2, lq, d), g(2, lk, d)
            b = snapshot(q, k)
            got = mod.scaled_scores(q, k)
            assert_close(got, ref_scaled(q, k))
            assert_unchanged(b, [q, k])
        q, k = g(7, 3), g(6, 3)
        assert_close(mod.scaled_scores(q, k), ref_scaled(q, k))
        q, k = g(2, 3, 5, 4), g(2, 3, 6, 4)
        assert_close(mod.scaled_scores(q, k), ref_scaled(q, k))
    c.check("scaled_values", scaled_values)

    def dtypes():
        s, q, k = g(2, 5, 7), g(2, 5, 8), g(2, 6, 8)
        for dt in DTYPES_LOW + [torch.float64]:
            o = mod.scale_scores(s.to(dt), 8)
            assert_dtype_device(o, dt, "cpu"); assert_close(o, ref_scale(s, 8), TOL[dt] * 10)
            o = mod.scaled_scores(q.to(dt), k.to(dt))
            assert_dtype_device(o, dt, "cpu"); assert_close(o, ref_scaled(q, k), TOL[dt] * 10)
    c.check("dtypes", dtypes)

    def device():
        assert_dtype_device(mod.scale_scores(*meta(g(2, 5, 7)), 8), torch.float64, "meta")
        assert_dtype_device(mod.scaled_scores(*meta(g(2, 5, 8), g(2, 6, 8))), torch.float64, "meta")
    c.check("device", device)
    c.check("scale_grad", lambda: assert_grads_close(lambda s: mod.scale_scores(s, 8), lambda s: ref_scale(s, 8), [g(2, 5, 7)]))
    c.check("scaled_grad", lambda: assert_grads_close(mod.scaled_scores, ref_scaled, [g(2, 5, 8), g(2, 6, 8)]))
    return c.results
