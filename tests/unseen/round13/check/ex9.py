import torch
from common import *


def ref_prev(p):
    return p.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))


def ref_ind(p, n):
    return p.diagonal(offset=1 - n, dim1=-2, dim2=-1)[..., 1:].mean(dim=(0, 2))


def pattern(B=2, H=3, L=8, seed=0):
    s = g(B, H, L, L, seed=seed).masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(s * 2, -1)


def raises(fn):
    try:
        fn()
    except ValueError:
        return
    raise AssertionError("no ValueError")


def run(mod):
    c = Checker()

    def tokens():
        t = mod.repeated_tokens(3, 5, 7, generator=torch.Generator().manual_seed(1))
        assert t.dtype == torch.long and t.shape == (3, 10) and t.device.type == "cpu"
        assert torch.equal(t[:, :5], t[:, 5:])
        t2 = mod.repeated_tokens(3, 5, 7, generator=torch.Generator().manual_seed(1))
        assert torch.equal(t, t2), "same seed, different tokens"
        torch.manual_seed(123)
        t3 = mod.repeated_tokens(3, 5, 7, generator=torch.Generator().manual_seed(1))
        assert torch.equal(t, t3), "depends on the global RNG"
        big = mod.repeated_tokens(4, 500, 3, generator=torch.Generator().manual_seed(2))
        assert set(big.unique().tolist()) == {0, 1, 2}, f"values {big.unique().tolist()}"
        one = mod.repeated_tokens(1, 3, 1)
        assert torch.equal(one, torch.zeros(1, 6, dtype=torch.long))
    c.check("tokens", tokens)

    def previous():
        for L in (2, 5, 8):
            p = pattern(L=L); b = snapshot(p)
            assert_close(mod.previous_token_score(p), ref_prev(p), 1e-12)
            assert_unchanged(b, [p])
    c.check("previous", previous)

    def previous_dtype():
        p = pattern()
        for dt in (torch.float64, torch.float32, torch.bfloat16):
            assert_dtype_device(mod.previous_token_score(p.to(dt)), dt, "cpu")
        assert_dtype_device(mod.previous_token_score(p.to("meta")), torch.float64, "meta")
    c.check("previous_dtype", previous_dtype)

    def induction():
        for n in (1, 2, 4):
            p = pattern(L=2 * n); b = snapshot(p)
            assert_close(mod.induction_score(p, n), ref_ind(p, n), 1e-12)
            assert_unchanged(b, [p])
        p = pattern()
        for dt in (torch.float64, torch.float32):
            assert_dtype_device(mod.induction_score(p.to(dt), 4), dt, "cpu")
        assert_dtype_device(mod.induction_score(p.to("meta"), 4), torch.float64, "meta")
    c.check("induction", induction)

    def validation():
        raises(lambda: mod.previous_token_score(pattern(L=1)))
        raises(lambda: mod.previous_token_score(pattern()[0]))
        raises(lambda: mod.previous_token_score(pattern()[..., :5]))
        raises(lambda: mod.induction_score(pattern(L=8), 3))
        raises(lambda: mod.induction_score(pattern()[0], 4))
        raises(lambda: mod.find_heads([pattern(L=7)]))
    c.check("validation", validation)

    def find_heads():
        L, n = 8, 4
        prev = torch.zeros(1, 3, L, L, dtype=torch.float64)
        prev[0, :, 0, 0] = 1
        for i in range(1, L):
            prev[0, 0, i, i - 1] = 1.0        # head 0: previous-token
            prev[0, 1, i, i] = 1.0            # head 1: self
            prev[0, 2, i, 0] = 1.0            # head 2: sink
        ind = torch.zeros(1, 4, L, L, dtype=torch.float64)
        for i in range(L):
            j = i - n + 1 if i >= n else 0
            ind[0, 2, i, j] = 1.0             # head 2 of layer 1: induction
            ind[0, 0, i, i] = 1.0
            ind[0, 1, i, max(i - 1, 0)] = 1.0  # head 1: previous-token too
            ind[0, 3, i, 0] = 1.0
        r = mod.find_heads([prev, ind])
        exp = {"previous_token": [(0, 0), (1, 1)], "induction": [(1, 2)]}
        assert r == exp, f"got {r}"
        for key in r:
            for t in r[key]:
                assert type(t) is tuple and all(type(v) is int for v in t), f"not (int, int): {t!r}"
        # threshold boundary: a head at exactly the threshold does not count
        half = torch.zeros(1, 1, 4, 4, dtype=torch.float64)
        for i in range(4):
            half[0, 0, i, 0] = 1.0
        half[0, 0, 1:, :] = 0
        half[0, 0, 1, 0] = 1.0; half[0, 0, 2, 1] = 0.5; half[0, 0, 2, 0] = 0.5; half[0, 0, 3, 2] = 0.0; half[0, 0, 3, 0] = 1.0
        s = float(mod.previous_token_score(half)[0])
        r = mod.find_heads([half], threshold=s)
        assert r == {"previous_token": [], "induction": []} or (r["previous_token"] == [] ), f"score == threshold counted: {r}"
        assert mod.find_heads([], 0.4) == {"previous_token": [], "induction": []}
    c.check("find_heads", find_heads)
    return c.results
