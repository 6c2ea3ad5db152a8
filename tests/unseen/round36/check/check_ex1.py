import torch
from common import DTYPES, Report, files, load, run

torch.manual_seed(1)


def checks(mod):
    def t(rep):
        # float64 reference by explicit sum over d_model
        for dt in DTYPES:
            x64 = torch.randn(2, 8, 5, dtype=torch.float64).transpose(1, 2)  # non-contiguous (2, 5, 8)
            x64 = x64.unsqueeze(0).expand(3, 2, 5, 8)  # extra leading dim, stride-0 view
            wq, wk, wv = (torch.randn(8, n, dtype=torch.float64) for n in (4, 4, 6))
            x, a, b, c = (t.to(dt) for t in (x64, wq, wk, wv))
            before = [t.clone() for t in (x, a, b, c)]
            q, k, v = mod.project(x, a, b, c)
            for got, w, nm in ((q, a, "q"), (k, b, "k"), (v, c, "v")):
                want = (x.double()[..., :, :, None] * w.double()[None, :, :]).sum(-2)
                rep.check(got.dtype == dt, f"project {nm} dtype {got.dtype} != {dt}")
                rep.close(got, want, f"project {nm} {dt}")
            rep.check(all(torch.equal(p, t) for p, t in zip(before, (x, a, b, c))), "project changed inputs")
            wqkv = torch.cat([a, a * 0.5, c[:, :4]], dim=1)  # (8, 12), d = 4
            q2, k2, v2 = mod.fused_project(x, wqkv)
            for i, got in enumerate((q2, k2, v2)):
                want = (x.double()[..., :, :, None] * wqkv.double()[None, :, 4 * i:4 * i + 4]).sum(-2)
                rep.check(got.dtype == dt and got.shape == (3, 2, 5, 4), f"fused part {i} dtype/shape")
                rep.close(got, want, f"fused part {i} {dt}")
        # gradients, float64, 2-D x (no batch dims)
        x = torch.randn(5, 8, dtype=torch.float64, requires_grad=True)
        ws = [torch.randn(8, n, dtype=torch.float64, requires_grad=True) for n in (3, 3, 2)]
        rep.check(torch.autograd.gradcheck(lambda x, a, b, c: mod.project(x, a, b, c), (x, *ws)), "project gradcheck")
        w = torch.randn(8, 9, dtype=torch.float64, requires_grad=True)
        rep.check(torch.autograd.gradcheck(lambda x, w: mod.fused_project(x, w), (x, w)), "fused gradcheck")
    return t


rep = Report()
for f in files(1):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise1: {rep.passes} checks passed, {rep.fails} failed")
