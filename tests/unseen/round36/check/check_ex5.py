import math

import torch
from common import DTYPES, Report, files, load, ref_attention, ref_softmax_autograd, ref_softmax_rows, run

torch.manual_seed(5)


def make_scores(dt):
    x = torch.randn(3, 4, 6, dtype=torch.float64) * 3
    x[0, 1] = -math.inf  # a fully masked row
    x[1, 2, :3] = -math.inf  # partly masked
    x[2, 0] = torch.tensor([1e4, -1e4, 1e4 - 1, 0.0, -math.inf, 9999.0], dtype=torch.float64)
    return x.to(dt)


def checks(mod):
    def t(rep):
        for dt in DTYPES:
            x = make_scores(dt)
            x0 = x.clone()
            y = mod.softmax(x, dim=-1)
            rep.check(y.dtype == dt and y.shape == x.shape, f"softmax dtype/shape {dt}")
            rep.close(y, ref_softmax_rows(x.double()), f"softmax {dt}")
            rep.check(torch.equal(x, x0), "softmax changed its input")
            # another dim and a non-contiguous input
            xt = x.transpose(0, 2)  # (6, 4, 3), dim 0 is the original last dim
            y0 = mod.softmax(xt, dim=0)
            rep.close(y0, ref_softmax_rows(x.double()).transpose(0, 2), f"softmax dim=0 non-contiguous {dt}")
            y1 = mod.softmax(x, dim=1)
            rep.close(y1, ref_softmax_rows(x.double().transpose(1, 2)).transpose(1, 2), f"softmax dim=1 {dt}")
        # gradients: finite rows by gradcheck; masked rows give zero grads and finite everywhere
        xf = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
        rep.check(torch.autograd.gradcheck(lambda a: mod.softmax(a, -1), (xf,)), "softmax gradcheck")
        x = make_scores(torch.float64).requires_grad_(True)
        g = torch.randn(3, 4, 6, dtype=torch.float64)
        (mod.softmax(x, -1) * g).sum().backward()
        xr = x.detach().clone().requires_grad_(True)
        (ref_softmax_autograd(xr) * g).sum().backward()
        rep.check(torch.isfinite(x.grad).all().item(), "softmax grad not finite")
        rep.check((x.grad[0, 1] == 0).all().item(), "fully masked row grad not zero")
        rep.close(x.grad, xr.grad, "softmax grad vs reference", tol=1e-9)

        # attention
        for dt in DTYPES:
            q = torch.randn(2, 3, 4, 5, dtype=torch.float64)
            k = torch.randn(2, 3, 6, 5, dtype=torch.float64).transpose(-1, -2).contiguous().transpose(-1, -2)
            v = torch.randn(2, 3, 6, 7, dtype=torch.float64)
            mask = torch.rand(2, 1, 4, 6) > 0.4
            mask[1, 0, 2] = False  # a query that sees nothing
            for m in (None, mask, torch.ones(4, 6, dtype=torch.bool).tril(2)):
                args = [t.to(dt) for t in (q, k, v)]
                keep = [a.clone() for a in args]
                out, w = mod.scaled_dot_product_attention(*args, mask=m)
                ro, rw = ref_attention(q, k, v, m)
                rep.check(out.dtype == dt and w.dtype == dt, f"sdpa dtype {dt}")
                rep.close(out, ro, f"sdpa out {dt} mask={None if m is None else tuple(m.shape)}")
                rep.close(w, rw, f"sdpa weights {dt}")
                rep.check(all(torch.equal(a, b) for a, b in zip(args, keep)), "sdpa changed inputs")
        # sdpa gradients with a dead query
        q = torch.randn(2, 3, 4, 5, dtype=torch.float64, requires_grad=True)
        k = torch.randn(2, 3, 6, 5, dtype=torch.float64, requires_grad=True)
        v = torch.randn(2, 3, 6, 7, dtype=torch.float64, requires_grad=True)
        mask = torch.rand(2, 1, 4, 6) > 0.4
        mask[1, 0, 2] = False
        mask[:, :, :, 0] |= torch.arange(4) != 2  # keep other rows non-empty
        go = torch.randn(2, 3, 4, 7, dtype=torch.float64)
        gw = torch.randn(2, 3, 4, 6, dtype=torch.float64)
        out, w = mod.scaled_dot_product_attention(q, k, v, mask)
        ((out * go).sum() + (w * gw).sum()).backward()
        grads = [t.grad.clone() for t in (q, k, v)]
        for t in (q, k, v):
            t.grad = None
        ro, rw = ref_attention(q, k, v, mask)
        ((ro * go).sum() + (rw * gw).sum()).backward()
        for a, b, nm in zip(grads, (q.grad, k.grad, v.grad), "qkv"):
            rep.close(a, b, f"sdpa grad d{nm}", tol=1e-9)
        rep.check((out[1, :, 2] == 0).all().item(), "dead query output not zero")
        rep.check((grads[0][1, :, 2] == 0).all().item(), "dead query grad not zero")
        # no forbidden op runs (aten op names containing softmax / fused attention)
        from check_ex10_watch import Watch
        with Watch() as w:
            qq = torch.randn(2, 4, 3, requires_grad=True)
            o, ww = mod.scaled_dot_product_attention(qq, qq, qq, torch.ones(4, 4, dtype=torch.bool).tril())
            (o.sum() + ww.sum()).backward()
            mod.softmax(torch.randn(3, 5), dim=0)
        rep.check(not w.bad, f"forbidden ops ran: {w.bad}")
        # empty key set
        out, w = mod.scaled_dot_product_attention(torch.randn(1, 3, 4), torch.randn(1, 0, 4), torch.randn(1, 0, 2))
        rep.check(out.shape == (1, 3, 2) and (out == 0).all().item(), "L_k = 0 gives zeros")
    return t


rep = Report()
for f in files(5):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise5: {rep.passes} checks passed, {rep.fails} failed")
