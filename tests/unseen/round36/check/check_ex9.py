import torch
from common import Report, files, load, run


def loops_prev(p):
    B, H, L, _ = p.shape
    return torch.tensor([sum(p[b, h, i, i - 1].item() for b in range(B) for i in range(1, L)) / (B * (L - 1)) for h in range(H)], dtype=torch.float64)


def loops_ind(p, n):
    B, H, L, _ = p.shape
    return torch.tensor([sum(p[b, h, i, i - n + 1].item() for b in range(B) for i in range(n, 2 * n)) / (B * n) for h in range(H)], dtype=torch.float64)


def raises(fn):
    try:
        fn()
    except ValueError:
        return True
    return False


def checks(mod):
    def t(rep):
        g = torch.Generator().manual_seed(3)
        a = mod.repeated_tokens(3, 4, 10, generator=g)
        rep.check(a.dtype == torch.long and a.shape == (3, 8) and a.device.type == "cpu", "tokens dtype/shape")
        rep.check(torch.equal(a[:, :4], a[:, 4:]) and a.min() >= 0 and a.max() < 10, "tokens repeat/range")
        b = mod.repeated_tokens(3, 4, 10, generator=torch.Generator().manual_seed(3))
        rep.check(torch.equal(a, b), "same seed same tokens")
        rep.check(torch.equal(a[:, :4], torch.randint(10, (3, 4), generator=torch.Generator().manual_seed(3))), "tokens = randint stream")
        one = mod.repeated_tokens(1, 1, 1)
        rep.check(one.tolist() == [[0, 0]], "vocab 1, seq 1")
        big = mod.repeated_tokens(200, 50, 7)
        rep.check(set(big.unique().tolist()) == set(range(7)), "uniform-ish over vocab")

        for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
            torch.manual_seed(9)
            for n in (1, 2, 5):
                p = torch.rand(2, 3, 2 * n, 2 * n, dtype=torch.float64).tril()
                p = (p / p.sum(-1, keepdim=True)).to(dt)
                p0 = p.clone()
                s = mod.previous_token_score(p)
                rep.check(s.shape == (3,) and s.dtype == dt, "prev shape/dtype")
                rep.close(s, loops_prev(p.double()), f"prev score n={n} {dt}")
                si = mod.induction_score(p, n)
                rep.check(si.shape == (3,) and si.dtype == dt, "ind shape/dtype")
                rep.close(si, loops_ind(p.double(), n), f"ind score n={n} {dt}")
                rep.check(torch.equal(p, p0), "pattern changed")
            pt = torch.rand(2, 3, 6, 6).to(dt).transpose(-1, -2)  # non-contiguous
            rep.close(mod.previous_token_score(pt), loops_prev(pt.double()), "prev non-contiguous")
        for bad in (torch.rand(3, 4, 4), torch.rand(1, 2, 4, 5), torch.rand(1, 1, 1, 1), torch.rand(1, 2, 3, 4, 4)):
            rep.check(raises(lambda: mod.previous_token_score(bad)), f"prev ValueError {tuple(bad.shape)}")
        rep.check(raises(lambda: mod.induction_score(torch.rand(1, 2, 6, 6), 2)), "ind L != 2n")
        rep.check(raises(lambda: mod.induction_score(torch.rand(1, 2, 6, 5), 3)), "ind not square")
        rep.check(raises(lambda: mod.induction_score(torch.rand(2, 6, 6), 3)), "ind 3-D")

        # find_heads: layer 0 head 1 previous-token; layer 1 head 0 induction, head 2 both-ish
        n, L = 4, 8
        prev = torch.zeros(L, L)
        prev[0, 0] = 1
        prev[torch.arange(1, L), torch.arange(0, L - 1)] = 1
        ind = torch.eye(L)
        ind[torch.arange(n, L), torch.arange(1, n + 1)] = 1
        ind[torch.arange(n, L), torch.arange(n, L)] = 0
        unif = torch.ones(L, L).tril()
        unif = unif / unif.sum(-1, keepdim=True)
        l0 = torch.stack([unif, prev, unif]).expand(2, 3, L, L)
        l1 = torch.stack([ind, unif, 0.5 * prev + 0.5 * ind]).expand(2, 3, L, L)
        res = mod.find_heads([l0, l1])
        rep.check(res == {"previous_token": [(0, 1), (1, 2)], "induction": [(1, 0), (1, 2)]}, f"find_heads {res}")
        res = mod.find_heads((l0, l1), threshold=0.6)
        rep.check(res == {"previous_token": [(0, 1)], "induction": [(1, 0)]}, f"find_heads thr .6 {res}")
        rep.check(mod.find_heads([]) == {"previous_token": [], "induction": []}, "no layers")
        rep.check(all(type(h) is int for pair in res["previous_token"] for h in pair), "ints")
        rep.check(raises(lambda: mod.find_heads([torch.rand(1, 1, 5, 5)])), "odd L")
        # a score exactly at the threshold does not count
        half = torch.zeros(1, 1, 4, 4)
        half[0, 0, 1:, :] = 0
        half[0, 0, torch.arange(1, 4), torch.arange(0, 3)] = 0.5
        rep.check(mod.find_heads([half], threshold=0.5)["previous_token"] == [], "score == threshold excluded")
    return t


rep = Report()
for f in files(9):
    print(f"  {f.parent.name}/{f.name}")
    run(f.name, checks(load(f)), rep)
print(f"exercise9: {rep.passes} checks passed, {rep.fails} failed")
