# float64 evidence: one layer serving two sequences, each with its own KVCache (two conversations, or a
# prompt re-run with a fresh cache while another is in flight), fed alternately. Expected: each chunk's output
# equals the layer's plain causal output on its whole sequence at those positions (the docstring's contract).
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise8_kv_cache.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
torch.manual_seed(0)
layer = m.CachedGroupedQueryAttention(18, 6, 2).double()
a, b = torch.randn(2, 6, 18, dtype=torch.float64), torch.randn(2, 6, 18, dtype=torch.float64)
with torch.no_grad():
    want_a, want_b = layer(a), layer(b)  # cache=None: plain causal GQA on the whole sequence
    ca, cb = m.KVCache(2, 2, 3, 6, dtype=torch.float64), m.KVCache(2, 2, 3, 6, dtype=torch.float64)
    steps = [("A", a, ca, want_a, 0, 3), ("B", b, cb, want_b, 0, 2), ("A", a, ca, want_a, 3, 4), ("B", b, cb, want_b, 2, 6), ("A", a, ca, want_a, 4, 6)]
    for name, x, cache, want, s, e in steps:
        try:
            got = layer(x[:, s:e], cache)
        except RuntimeError as err:
            print(f"sequence {name}, tokens {s}..{e-1} (len(cache) afterwards {len(cache)}): raised RuntimeError: {str(err)[:80]}")
            continue
        print(f"sequence {name}, tokens {s}..{e-1} (len(cache) afterwards {len(cache)}): max |got - expected| = {(got - want[:, s:e]).abs().max().item():.3e}")
