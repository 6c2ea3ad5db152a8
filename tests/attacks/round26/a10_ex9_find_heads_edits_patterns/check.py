# evidence: find_heads(patterns) rewrites the caller's patterns in place ("inputs are left unchanged", module
# docstring): rounding changes in every layer, and NaN where a query row is all zeros (a query that may see no
# key gets zero weights in this kit, exercise 5), after which that layer's heads are missed.
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise9_head_patterns.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = torch.Generator().manual_seed(0)
T = 5; L = 2 * T
base = torch.zeros(L, L, dtype=torch.float64); base[torch.arange(1, L), torch.arange(L - 1)] = 1.0; base[0, 0] = 1.0
noise = torch.softmax(torch.randn(2, 3, L, L, generator=g, dtype=torch.float64).masked_fill(~torch.ones(L, L, dtype=torch.bool).tril(), float("-inf")), -1)
p = (0.75 * base + 0.25 * noise).float()  # head-planted previous-token pattern, float32
p_with_empty = p.clone(); p_with_empty[1, :, L - 1] = 0.0  # sequence 1: its last query sees no key (fully masked): zeros
for name, pat in (("ordinary", p), ("a fully masked query row", p_with_empty)):
    before = pat.clone()
    expected = {"previous_token": [(0, h) for h in range(3) if float(before.double().diagonal(-1, -2, -1).mean(dim=(0, 2))[h]) > 0.4]}
    got = m.find_heads([pat])
    changed = (~((before == pat) | (before.isnan() & pat.isnan()))).sum().item()
    print(f"{name}: entries of the caller's pattern changed: {changed}, NaN now: {pat.isnan().sum().item()}; "
          f"previous_token heads {got['previous_token']} (expected {expected['previous_token']})")
