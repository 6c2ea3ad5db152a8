import math

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from common import DTYPES, Report, files, load, ref_attention, ref_causal_mask, ref_softmax_rows, run

FORBIDDEN = ("softmax", "scaled_dot_product", "multi_head_attention")


class Watch(TorchDispatchMode):
    """Largest tensor produced by any op, and any forbidden op names."""

    def __init__(self):
        super().__init__()
        self.max_numel = 0
        self.max_shape = None
        self.bad = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = str(func)
        if any(w in name for w in FORBIDDEN):
            self.bad.add(name)
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.numel() > self.max_numel:
                self.max_numel, self.max_shape = o.numel(), tuple(o.shape)
        return out


def checks(mod):
    def t(rep):
        c = mod.attention_cost(1024, 768)
        rep.check(c == {"core_attention": 4 * 1024 ** 2 * 768, "projections": 8 * 1024 * 768 ** 2,
                        "feed_forward": 16 * 1024 * 768 ** 2}, f"attention_cost {c}")
        rep.check(all(type(v) is int for v in c.values()), "cost ints")
        rep.check(mod.crossover_length(768) == 4608 and type(mod.crossover_length(768)) is int, "crossover 768")
        rep.check(mod.crossover_length(1) == 6 and mod.crossover_length(4096) == 24576, "crossover others")
        cc = mod.attention_cost(6 * 5, 5)
        rep.check(cc["core_attention"] == cc["projections"] + cc["feed_forward"], "crossover consistent")

        torch.manual_seed(10)
        x64 = torch.randn(3, 2, 7, dtype=torch.float64) * 3
        x64[0, 1] = -math.inf
        x64[1, 0, 2:5] = -math.inf
        x64[2, 1] = torch.tensor([1e4, -1e4, 9999.0, 0.0, -math.inf, 9998.5, -1e4], dtype=torch.float64)
        for dt in DTYPES:
            x = x64.to(dt)
            want = ref_softmax_rows(x.double())  # of the values actually representable in dt
            x0 = x.clone()
            for bs in (1, 2, 3, 7, 50):
                with Watch() as w:
                    y = mod.online_softmax(x, bs)
                rep.check(not w.bad, f"forbidden ops {w.bad}")
                rep.check(y.dtype == dt and y.shape == x.shape, "online dtype/shape")
                rep.close(y, want, f"online_softmax bs={bs} {dt}")
            rep.close(mod.online_softmax(x.transpose(0, 1), 3), want.transpose(0, 1), f"online non-contiguous {dt}")
            rep.check(torch.equal(x, x0), "online_softmax changed x")
        rep.check(mod.online_softmax(torch.randn(2, 0), 4).shape == (2, 0), "online empty rows")
        rep.close(mod.online_softmax(torch.tensor([2.0]), 1), torch.tensor([1.0]), "online 1-D single")

        # tiled attention
        cases = [(5, 5), (3, 8), (8, 3), (1, 6), (6, 1), (4, 0), (0, 4)]
        for dt in DTYPES:
            for L_q, L_k in cases:
                q = torch.randn(2, 3, L_q, 4, dtype=torch.float64)
                k = torch.randn(2, 3, L_k, 4, dtype=torch.float64)
                v = torch.randn(2, 3, 6, L_k, dtype=torch.float64).transpose(-1, -2)  # non-contiguous
                for causal in (False, True):
                    mask = ref_causal_mask(L_q, L_k) if causal else None
                    ro, _ = ref_attention(q, k, v, mask)
                    for bs in (1, 2, 3, 64):
                        args = [a.to(dt) for a in (q, k, v)]
                        keep = [a.clone() for a in args]
                        with Watch() as w:
                            out = mod.tiled_attention(*args, bs, causal=causal)
                        rep.check(not w.bad, f"forbidden ops {w.bad}")
                        rep.check(out.dtype == dt and out.shape == (2, 3, L_q, 6), f"tiled dtype/shape {out.dtype} {tuple(out.shape)}")
                        rep.close(out, ro, f"tiled {dt} Lq={L_q} Lk={L_k} causal={causal} bs={bs}")
                        rep.check(all(torch.equal(a, b) for a, b in zip(args, keep)), "tiled changed inputs")
        # no leading dims
        q, k, v = torch.randn(5, 3, dtype=torch.float64), torch.randn(7, 3, dtype=torch.float64), torch.randn(7, 2, dtype=torch.float64)
        rep.close(mod.tiled_attention(q, k, v, 2, causal=True), ref_attention(q, k, v, ref_causal_mask(5, 7))[0], "2-D inputs")
        # gradients, float64, including dead queries (L_q > L_k causal)
        for L_q, L_k, causal in ((5, 5, True), (7, 4, True), (3, 6, True), (4, 6, False)):
            q = torch.randn(2, L_q, 4, dtype=torch.float64, requires_grad=True)
            k = torch.randn(2, L_k, 4, dtype=torch.float64, requires_grad=True)
            v = torch.randn(2, L_k, 3, dtype=torch.float64, requires_grad=True)
            g = torch.randn(2, L_q, 3, dtype=torch.float64)
            for bs in (1, 2, 5):
                (mod.tiled_attention(q, k, v, bs, causal=causal) * g).sum().backward()
                got = [a.grad.clone() for a in (q, k, v)]
                for a in (q, k, v):
                    a.grad = None
                (ref_attention(q, k, v, ref_causal_mask(L_q, L_k) if causal else None)[0] * g).sum().backward()
                for a, b, nm in zip(got, (q.grad, k.grad, v.grad), "qkv"):
                    rep.close(a, b.grad if False else b, f"tiled d{nm} Lq={L_q} Lk={L_k} causal={causal} bs={bs}", tol=1e-9)
                for a in (q, k, v):
                    a.grad = None
        # memory: largest tensor ~ L_q * block, never L_q * L_k
        L, bs, d = 512, 32, 8
        q, k, v = (torch.randn(1, L, d, requires_grad=True) for _ in range(3))
        for causal in (False, True):
            with Watch() as w:
                out = mod.tiled_attention(q, k, v, bs, causal=causal)
                out.sum().backward()
            rep.check(w.max_numel <= L * bs, f"largest tensor {w.max_shape} ({w.max_numel}) > L*block={L * bs}")
            print(f"    largest tensor (fwd+bwd, L={L}, block={bs}, causal={causal}): {w.max_shape}")
        with torch.no_grad():
            L = 8192
            q, k, v = (torch.randn(L, 16) for _ in range(3))
            with Watch() as w:
                out = mod.tiled_attention(q, k, v, 512, causal=True)
            rep.check(w.max_numel <= L * 512, f"big L largest {w.max_shape}")
            ref = ref_attention(q[-3:].double(), k.double(), v.double(), ref_causal_mask(3, L))[0]
            rep.close(out[-3:], ref, "big L last queries", tol=1e-4)
            ref0 = ref_attention(q[:2].double(), k[:2].double(), v[:2].double(), torch.ones(2, 2, dtype=torch.bool).tril())[0]
            rep.close(out[:2], ref0, "big L first queries", tol=1e-4)
    return t


rep = Report()
for f in files(10):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise10: {rep.passes} checks passed, {rep.fails} failed")
