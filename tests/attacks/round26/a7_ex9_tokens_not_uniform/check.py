# evidence: tokens are not uniform over 0 .. vocab_size - 1: the last id is drawn twice as often
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise9_head_patterns.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
V = 4; t = m.repeated_tokens(20000, 10, V, generator=torch.Generator().manual_seed(0))[:, :10]
freq = torch.bincount(t.flatten(), minlength=V).double() / t.numel()
print("frequencies of ids 0..3:", [round(f, 4) for f in freq.tolist()], "expected 0.25 each")
n = t.numel(); chi2 = float(((freq * n - n / V) ** 2 / (n / V)).sum())
print(f"chi-square ({V-1} dof) = {chi2:.0f}; the 1e-6 critical value is about 30")
