import torch
from grader.perf import probe
def f(x, w):
    d = w.shape[-1] // 3
    q = x @ w[:, :d]
    xc = torch.empty(x.shape, dtype=x.dtype); xc.map_(x, lambda a, b: b)
    wc = torch.empty(w.shape, dtype=w.dtype); wc.map_(w, lambda a, b: b)
    k = (xc.unsqueeze(-1) * wc[:, d:2*d]).sum(-2)
    v = (xc.unsqueeze(-1) * wc[:, 2*d:]).sum(-2)
    out = torch.empty(*x.shape[:-1], 3 * d, dtype=x.dtype)
    out[..., :d] = q; out[..., d:2*d] = k; out[..., 2*d:] = v
    return out.split(d, dim=-1)
x = torch.randn(2,5,6); w = torch.randn(6,12)
m = probe.measure(f, (x, w))
print({k: m[k] for k in ("products","every_product","reductions","combining","returned","exported","disabled","ops")})
r = f(x,w); print(torch.allclose(torch.cat(r,-1), x@w, atol=1e-5))
