# A head that is half previous-token, half induction (the docstring: "A head may be in both lists").
import sys, importlib.util, torch
def load(path):
    spec = importlib.util.spec_from_file_location("m", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
seq_len = 6; L = 2 * seq_len
p = torch.zeros(1, 1, L, L)
p[0, 0, 0, 0] = 1
for i in range(1, L):
    if i >= seq_len:
        p[0, 0, i, i - 1] += 0.5; p[0, 0, i, i - seq_len + 1] += 0.5
    else:
        p[0, 0, i, i - 1] = 1
for name in ("sub", "control"):
    m = load(f"{name}/exercise9_head_patterns.py")
    print(name, "prev", m.previous_token_score(p).tolist(), "ind", m.induction_score(p, seq_len).tolist(), m.find_heads([p]))
