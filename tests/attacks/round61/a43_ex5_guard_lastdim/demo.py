import importlib.util, torch
def load(path):
    spec = importlib.util.spec_from_file_location("m", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
x = torch.randn(3, 4); x[:, 1] = float("-inf")   # along dim 0, slice 1 is entirely -inf
for name in ("sub", "control"):
    m = load(f"{name}/exercise5_softmax.py")
    print(name, m.softmax(x, dim=0)[:, 1].tolist())
