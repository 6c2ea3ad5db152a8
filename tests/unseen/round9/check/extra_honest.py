"""Extra checks of the honest files: half precision, more shapes, the off-limits functions."""
import importlib.util
import math
import re
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
import refs  # noqa: E402
from tests import close, rn, grads  # noqa: E402

ROOT = Path("/work/unseen9")


def load(p):
    spec = importlib.util.spec_from_file_location("h_" + p.stem + p.parent.name, p)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


bad = 0
for p in sorted(ROOT.glob("exercise*/honest_*.py")):
    n = int(p.parent.name[8:])
    src = p.read_text()
    code = "\n".join(l for l in src.split("\n") if not l.lstrip().startswith("#"))
    body = code.split('"""')  # crude: only look at code outside docstrings
    code_only = "".join(body[0::2])
    probs = []
    if n in (5, 10) and re.search(r"torch\.softmax|functional\.softmax|F\.softmax|\.softmax\(|log_softmax|nn\.Softmax|special\.softmax", code_only):
        probs.append("uses a torch softmax?")
    if re.search(r"functional\.scaled_dot_product_attention|F\.scaled_dot_product_attention|MultiheadAttention\(", code_only):
        probs.append("uses fused attention")
    if ".detach(" in code_only or ".data" in code_only:
        probs.append("detach/.data")
    m = load(p)
    try:
        for dt in (torch.float16, torch.bfloat16, torch.float32):
            if n == 2:
                q, k = rn(2, 3, 4, 5, dtype=dt), rn(2, 3, 6, 5, dtype=dt)
                close(m.attention_scores(q, k), refs.scores(q.double(), k.double()).to(dt), dt)
            if n == 3:
                q, k = rn(3, 5, 8, dtype=dt), rn(3, 6, 8, dtype=dt)
                close(m.scaled_scores(q, k), (refs.scores(q.double(), k.double()) / math.sqrt(8)).to(dt), dt)
            if n == 4:
                s = rn(2, 3, 3, dtype=dt)
                out = m.apply_mask(s, refs.causal(3))
                assert out.dtype == dt and torch.equal(out, s.masked_fill(~refs.causal(3), float("-inf")))
            if n == 5:
                q, k, v = rn(2, 4, 8, dtype=dt), rn(2, 6, 8, dtype=dt), rn(2, 6, 3, dtype=dt)
                mk = torch.rand(2, 4, 6, generator=torch.Generator().manual_seed(3)) > 0.4
                mk[0, 0] = False
                o, w = m.scaled_dot_product_attention(q, k, v, mk)
                ro, rw = refs.sdpa(q.double(), k.double(), v.double(), mk)
                close(o, ro.to(dt), dt), close(w, rw.to(dt), dt)
            if n == 10:
                for causal in (False, True):
                    q, k, v = rn(2, 7, 8, dtype=dt), rn(2, 10, 8, dtype=dt), rn(2, 10, 3, dtype=dt)
                    close(m.tiled_attention(q, k, v, 4, causal), refs.attention_full(q.double(), k.double(), v.double(), causal).to(dt), dt)
                x = rn(3, 9, dtype=dt) * 100
                close(m.online_softmax(x, 4), refs.softmax(x.double()).to(dt), dt)
            if n == 6:
                mod = m.MultiHeadAttention(16, 4).to(dt)
                x = rn(2, 5, 16, dtype=dt)
                assert mod(x).dtype == dt and torch.isfinite(mod(x).float()).all()
            if n == 7:
                mod = m.GroupedQueryAttention(16, 4, 2).to(dt)
                x = rn(2, 5, 16, dtype=dt)
                assert mod(x).dtype == dt
        if n == 10:  # larger grads, bigger blocks, 4-D
            for Lq, Lk, bs in ((16, 16, 5), (3, 16, 16), (16, 3, 1)):
                grads(lambda q, k, v: m.tiled_attention(q, k, v, bs, causal=True),
                      lambda q, k, v: refs.attention_full(q, k, v, True), [rn(2, 2, Lq, 4), rn(2, 2, Lk, 4), rn(2, 2, Lk, 6)])
        if n == 5:
            x = rn(4, 3, 5)
            x[1, :, 2] = float("-inf")
            grads(lambda x: m.softmax(x, 1), lambda x: refs.softmax(x, 1), [x])
    except Exception as e:  # noqa: BLE001
        probs.append(f"{type(e).__name__}: {str(e)[:150]}")
    bad += bool(probs)
    print(("BAD " if probs else "OK  ") + str(p.relative_to(ROOT)), probs or "")
print("BAD:", bad)
