import torch
from common import *


def ref(q, k):
    return q @ k.transpose(-2, -1)


def run(mod):
    c = Checker()
    f = mod.attention_scores

    def vals(q, k, tol=1e-9):
        before = snapshot(q, k)
        got = f(q, k)
        assert_close(got, ref(*before), tol)
        assert_dtype_device(got, q.dtype, "cpu")

    c.check("values_batched", lambda: vals(g(2, 5, 4), g(2, 7, 4)))
    c.check("values_square", lambda: vals(g(2, 5, 4), g(2, 5, 4)))
    c.check("values_2d", lambda: vals(g(5, 3), g(6, 3)))
    c.check("values_4d", lambda: vals(g(2, 3, 5, 4), g(2, 3, 6, 4)))

    def unchanged():
        q, k = g(2, 5, 4), g(2, 7, 4)
        before = snapshot(q, k)
        f(q, k)
        assert_unchanged(before, [q, k])
        f(q, k)
        assert_unchanged(before, [q, k])
    c.check("inputs_unchanged", unchanged)

    def dtypes():
        q, k = g(2, 5, 4), g(2, 7, 4)
        for dt in DTYPES_LOW:
            got = f(q.to(dt), k.to(dt))
            assert_dtype_device(got, dt, "cpu"); assert_close(got, ref(q, k), TOL[dt] * 10)
    c.check("dtypes", dtypes)
    c.check("device", lambda: assert_dtype_device(f(*meta(g(2, 5, 4), g(2, 7, 4))), torch.float64, "meta"))
    c.check("grad", lambda: assert_grads_close(f, ref, [g(2, 5, 4), g(2, 7, 4)]))
    return c.results
