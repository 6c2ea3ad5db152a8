import math
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from common import *
from attn_ref import ref_softmax, causal


def ref_attn(q, k, v, is_causal=False):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if is_causal:
        s = s.masked_fill(~causal(q.shape[-2], k.shape[-2]), float("-inf"))
    return ref_softmax(s, -1) @ v


class MaxNumel(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.max = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor):
                self.max = max(self.max, o.numel())
        return out


def rows():
    x = g(5, 9)
    x[0, 3] = 1e4; x[1, :] = -1e4; x[1, 7] = -1e4 + 3
    x[2, :5] = float("-inf")
    x[3, :] = float("-inf")
    x[4, 8] = 1e4
    return x


def run(mod):
    c = Checker()

    def cost():
        r = mod.attention_cost(10, 7)
        assert r == {"core_attention": 4 * 100 * 7, "projections": 8 * 10 * 49, "feed_forward": 16 * 10 * 49}, r
        assert all(type(v) is int for v in r.values())
        x = mod.crossover_length(768)
        assert x == 4608 and type(x) is int, repr(x)
        assert mod.crossover_length(1) == 6 and type(mod.crossover_length(4096)) is int
    c.check("cost", cost)

    def online_values():
        for x in (g(3, 10), g(2, 3, 7), rows()[[0, 1, 2, 4]]):
            b = snapshot(x)
            for bs in (1, 3, 4, 9, 10, 50):
                assert_close(mod.online_softmax(x, bs), ref_softmax(x, -1), 1e-10, f"block_size={bs}")
            assert_unchanged(b, [x])
        x = torch.tensor([[0.0, 1.0, 5.0, 30.0, 60.0, 90.0]], dtype=torch.float64)
        assert_close(mod.online_softmax(x, 1), ref_softmax(x, -1), 1e-10, "increasing row")
    c.check("online_values", online_values)

    def online_masked():
        x = rows()
        for bs in (1, 4, 20):
            assert_close(mod.online_softmax(x, bs), ref_softmax(x, -1), 1e-10, f"block_size={bs}")
    c.check("online_masked", online_masked)

    def online_dtypes():
        x = rows()
        for dt in DTYPES_LOW:
            got = mod.online_softmax(x.to(dt), 4)
            assert_dtype_device(got, dt, "cpu"); assert_close(got, ref_softmax(x.to(dt).double()), TOL[dt] * 5)
        assert_dtype_device(mod.online_softmax(x.to("meta"), 4), torch.float64, "meta")
    c.check("online_dtypes", online_dtypes)

    def tiled_values():
        for (Lq, Lk, bs) in ((6, 6, 4), (5, 11, 3), (7, 7, 1), (4, 9, 100), (8, 8, 8), (3, 10, 4)):
            q, k, v = g(2, 3, Lq, 4), g(2, 3, Lk, 4), g(2, 3, Lk, 5)
            b = snapshot(q, k, v)
            assert_close(mod.tiled_attention(q, k, v, bs), ref_attn(q, k, v), 1e-10, f"{(Lq, Lk, bs)}")
            assert_unchanged(b, [q, k, v])
        q, k, v = g(5, 4), g(7, 4), g(7, 2)
        assert_close(mod.tiled_attention(q, k, v, 2), ref_attn(q, k, v), 1e-10, "2-D")
    c.check("tiled_values", tiled_values)

    def tiled_causal():
        for (Lq, Lk, bs) in ((6, 6, 4), (3, 10, 4), (1, 9, 2), (5, 8, 3)):
            q, k, v = g(2, Lq, 4), g(2, Lk, 4), g(2, Lk, 5)
            assert_close(mod.tiled_attention(q, k, v, bs, causal=True), ref_attn(q, k, v, True), 1e-10, f"{(Lq, Lk, bs)}")
    c.check("tiled_causal", tiled_causal)

    def tiled_no_key():
        q, k, v = g(2, 6, 4), g(2, 4, 4), g(2, 4, 5)   # L_q > L_k: first 2 queries see nothing
        got = mod.tiled_attention(q, k, v, 3, causal=True)
        assert torch.isfinite(got).all(), "NaN for a query that sees no key"
        assert_close(got, ref_attn(q, k, v, True), 1e-10)
    c.check("tiled_no_key", tiled_no_key)

    def tiled_grad():
        for (Lq, Lk, bs, cz) in ((5, 7, 3, False), (6, 6, 4, True), (6, 4, 3, True)):
            assert_grads_close(lambda q, k, v: mod.tiled_attention(q, k, v, bs, causal=cz),
                               lambda q, k, v: ref_attn(q, k, v, cz), [g(2, Lq, 4), g(2, Lk, 4), g(2, Lk, 5)])
    c.check("tiled_grad", tiled_grad)

    def tiled_memory():
        q, k, v = g(2, 256, 8), g(2, 256, 8), g(2, 256, 8)
        with MaxNumel() as mm:
            mod.tiled_attention(q, k, v, 16, causal=True)
        assert mm.max < 2 * 256 * 256 // 4, f"a tensor of {mm.max} elements (the scores are {2 * 256 * 256})"
    c.check("tiled_memory", tiled_memory)

    def tiled_dtypes():
        q, k, v = g(2, 5, 4), g(2, 7, 4), g(2, 7, 3)
        for dt in DTYPES_LOW + [torch.float64]:
            got = mod.tiled_attention(q.to(dt), k.to(dt), v.to(dt), 3, causal=True)
            assert_dtype_device(got, dt, "cpu")
            assert_close(got, ref_attn(q.to(dt).double(), k.to(dt).double(), v.to(dt).double(), True), TOL[dt] * 10 if dt != torch.float64 else 1e-10)
        assert_dtype_device(mod.tiled_attention(*meta(q, k, v), 3, causal=True), torch.float64, "meta")
    c.check("tiled_dtypes", tiled_dtypes)
    return c.results
