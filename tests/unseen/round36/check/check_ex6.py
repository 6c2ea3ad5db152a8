import torch
from common import DTYPES, Report, files, load, ref_attention, ref_causal_mask, run

torch.manual_seed(6)


def ref_mha(x, sd, H, mask=None):
    B, L, D = x.shape
    dh = D // H
    qkv = x @ sd["qkv.weight"].T
    if "qkv.bias" in sd:
        qkv = qkv + sd["qkv.bias"]
    if mask is None:
        mask = ref_causal_mask(L, L)
    mask = mask.broadcast_to(B, H, L, L)
    heads = []
    for h in range(H):
        sl = slice(h * dh, (h + 1) * dh)
        q, k, v = qkv[..., :D][..., sl], qkv[..., D:2 * D][..., sl], qkv[..., 2 * D:][..., sl]
        heads.append(ref_attention(q, k, v, mask[:, h])[0])
    y = torch.cat(heads, -1) @ sd["out.weight"].T
    if "out.bias" in sd:
        y = y + sd["out.bias"]
    return y


def checks(mod):
    def t(rep):
        # split / merge
        for dt in DTYPES:
            x = torch.randn(2, 12, 5, dtype=torch.float64).to(dt).transpose(1, 2)  # (2, 5, 12) non-contig
            x0 = x.clone()
            s = mod.split_heads(x, 3)
            rep.check(s.shape == (2, 3, 5, 4) and s.dtype == dt, "split shape/dtype")
            want = torch.stack([x[:, :, h * 4:(h + 1) * 4] for h in range(3)], 1)
            rep.check(torch.equal(s, want), f"split values {dt}")
            m = mod.merge_heads(s)
            rep.check(m.shape == (2, 5, 12) and torch.equal(m, x), f"merge(split(x)) == x {dt}")
            y = torch.randn(2, 5, 3, 4).to(dt).transpose(1, 2)  # non-contiguous (B, H, L, dh)
            y0 = y.clone()
            m2 = mod.merge_heads(y)
            rep.check(torch.equal(m2, torch.cat([y[:, h] for h in range(3)], -1)), f"merge non-contiguous {dt}")
            rep.check(torch.equal(x, x0) and torch.equal(y, y0), "split/merge changed inputs")
        xc = torch.randn(2, 5, 12)
        rep.check(mod.split_heads(xc, 3).data_ptr() == xc.data_ptr(), "split_heads is a view")
        # module
        for bias in (True, False):
            torch.manual_seed(0)
            mha = mod.MultiHeadAttention(12, 3, bias=bias)
            keys = set(mha.state_dict())
            want = {"qkv.weight", "out.weight"} | ({"qkv.bias", "out.bias"} if bias else set())
            rep.check(keys == want, f"state dict keys {sorted(keys)}")
            rep.check(mha.qkv.weight.shape == (36, 12) and mha.out.weight.shape == (12, 12), "layer shapes")
            mha = mha.double()
            sd = {k: v.detach().clone() for k, v in mha.state_dict().items()}
            x = torch.randn(2, 5, 12, dtype=torch.float64, requires_grad=True)
            pad = torch.ones(2, 1, 5, 5, dtype=torch.bool)
            pad[1] = False  # sequence 1 is all padding
            pad[0, 0, 2, 3:] = False
            for mask in (None, pad, torch.ones(5, 5, dtype=torch.bool)):
                g = torch.randn(2, 5, 12, dtype=torch.float64)
                y = mha(x, mask)
                (y * g).sum().backward()
                gx, gp = x.grad.clone(), {n: p.grad.clone() for n, p in mha.named_parameters()}
                x.grad = None
                mha.zero_grad(set_to_none=True)
                ps = {k: v.clone().requires_grad_(True) for k, v in sd.items()}
                yr = ref_mha(x, ps, 3, mask)
                (yr * g).sum().backward()
                rep.close(y, yr, f"mha out bias={bias} mask={None if mask is None else tuple(mask.shape)}")
                rep.close(gx, x.grad, "mha dx", tol=1e-9)
                for n in gp:
                    rep.close(gp[n], ps[n].grad, f"mha d{n}", tol=1e-9)
                x.grad = None
                if mask is pad:
                    want_dead = sd["out.bias"].expand(5, 12) if bias else torch.zeros(5, 12, dtype=torch.float64)
                    rep.close(y[1], want_dead, "all-padding sequence gives out's bias")
            for dt in (torch.float32, torch.float16, torch.bfloat16):
                m2 = mod.MultiHeadAttention(12, 3, bias=bias)
                m2.load_state_dict({k: v.to(torch.float32) for k, v in sd.items()})
                m2 = m2.to(dt)
                xx = x.detach().to(dt)
                y = m2(xx)
                rep.check(y.dtype == dt, f"mha dtype {dt}")
                rep.close(y, ref_mha(xx.double(), {k: v.to(dt).double() for k, v in sd.items()}, 3), f"mha {dt}")
        with torch.no_grad():
            rep.check(mod.MultiHeadAttention(12, 3)(torch.randn(2, 0, 12)).shape == (2, 0, 12), "L = 0")
            rep.check(mod.MultiHeadAttention(12, 3)(torch.randn(1, 1, 12)).shape == (1, 1, 12), "L = 1")
    return t


rep = Report()
for f in files(6):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise6: {rep.passes} checks passed, {rep.fails} failed")
