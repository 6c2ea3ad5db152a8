# float64 evidence: the submission's scores vs the docstring's definition, at B=1 (and H=1)
import importlib.util, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise9_head_patterns.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = torch.Generator().manual_seed(0)
def ref_prev(p): return p.diagonal(-1, -2, -1).mean(dim=(0, 2))
def ref_ind(p, T): return p.diagonal(1 - T, -2, -1)[..., 1:].mean(dim=(0, 2))
for B, H in [(2, 3), (1, 3), (3, 1)]:
    T = 4; p = torch.softmax(torch.randn(B, H, 2*T, 2*T, generator=g, dtype=torch.float64), -1)
    got, exp = m.previous_token_score(p), ref_prev(p)
    print(f"B={B} H={H} previous_token_score: got {got.tolist()} shape {tuple(got.shape)}; expected {exp.tolist()} shape {tuple(exp.shape)}")
    got, exp = m.induction_score(p, T), ref_ind(p, T)
    print(f"B={B} H={H} induction_score:      got {got.tolist()} shape {tuple(got.shape)}; expected {exp.tolist()} shape {tuple(exp.shape)}")
