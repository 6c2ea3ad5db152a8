# the running max started at -1e4 instead of -inf: wrong (zeros) where every score of a row is below about -1e4 - 100
import importlib.util, sys, torch, math
spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = torch.Generator().manual_seed(0)
x = -2e4 + torch.randn(2, 3, 9, generator=g, dtype=torch.float64) * 5   # scores "of order 1e4", all negative
print("online_softmax, scores near -2e4: max |got - softmax| =", (m.online_softmax(x, 4) - torch.softmax(x, -1)).abs().max().item())
q = -100 * (torch.randn(2, 2, 6, 4, generator=g, dtype=torch.float64).abs() + 1)
k = 100 * (torch.randn(2, 2, 6, 4, generator=g, dtype=torch.float64).abs() + 1)
v = torch.randn(2, 2, 6, 3, generator=g, dtype=torch.float64)
s = q @ k.transpose(-2, -1) / 2
ref = torch.softmax(s, -1) @ v
print("tiled_attention, scores", f"{s.max().item():.0f}..{s.min().item():.0f}", ": max |got - ref| =", (m.tiled_attention(q, k, v, 4) - ref).abs().max().item(), " max |ref| =", ref.abs().max().item())
