import torch
from common import *


def ref_project(x, wq, wk, wv):
    return x @ wq, x @ wk, x @ wv


def ref_fused(x, w):
    d = w.shape[1] // 3
    return x @ w[:, :d], x @ w[:, d:2 * d], x @ w[:, 2 * d:]


def run(mod):
    c = Checker()
    x, wq, wk, wv = g(2, 3, 5, 4), g(4, 3), g(4, 3), g(4, 6)
    w = g(4, 9)

    def vals(fn, ref, args, tol=1e-9):
        before = snapshot(*args)
        got = fn(*args)
        assert isinstance(got, tuple) and len(got) == 3, "not a 3-tuple"
        for a, b in zip(got, ref(*args)):
            assert_close(a, b, tol)
            assert_dtype_device(a, args[0].dtype, "cpu")
        assert_unchanged(before, args)

    c.check("project_values", lambda: vals(mod.project, ref_project, [x, wq, wk, wv]))
    c.check("project_square_values", lambda: vals(mod.project, ref_project, [g(2, 5, 4), g(4, 4), g(4, 4), g(4, 4)]))
    c.check("project_2d", lambda: vals(mod.project, ref_project, [g(5, 4), wq, wk, wv]))
    c.check("project_noncontig", lambda: vals(mod.project, ref_project, [g(3, 2, 5, 4).transpose(0, 1), wq, wk, wv]))
    c.check("fused_values", lambda: vals(mod.fused_project, ref_fused, [x, w]))
    c.check("fused_square", lambda: vals(mod.fused_project, ref_fused, [g(2, 5, 4), g(4, 12)]))

    def dtypes():
        for dt in DTYPES_LOW:
            args = [t.to(dt) for t in (x, wq, wk, wv)]
            for a, b in zip(mod.project(*args), ref_project(x, wq, wk, wv)):
                assert_dtype_device(a, dt, "cpu"); assert_close(a, b, TOL[dt] * 10)
            for a, b in zip(mod.fused_project(x.to(dt), w.to(dt)), ref_fused(x, w)):
                assert_dtype_device(a, dt, "cpu"); assert_close(a, b, TOL[dt] * 10)
    c.check("dtypes", dtypes)

    def device():
        for a in mod.project(*meta(x, wq, wk, wv)):
            assert_dtype_device(a, torch.float64, "meta")
        for a in mod.fused_project(*meta(x, w)):
            assert_dtype_device(a, torch.float64, "meta")
    c.check("device", device)
    c.check("project_grad", lambda: assert_grads_close(mod.project, ref_project, [x, wq, wk, wv]))
    c.check("fused_grad", lambda: assert_grads_close(mod.fused_project, ref_fused, [x, w]))
    return c.results
