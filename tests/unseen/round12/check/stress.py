"""Extra stress for the honest files (larger sizes, long rows in half precision, huge scores)."""
import glob
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ref  # noqa: E402
from common import BF16, F16, F32, F64, banned_softmax, close, load, rnd  # noqa: E402

ROOT = os.path.dirname(HERE)
bad = 0


def run(name, fn):
    global bad
    try:
        fn()
    except Exception as e:  # noqa
        bad += 1
        print("FAIL", name, type(e).__name__, str(e)[:200])


for path in sorted(glob.glob(os.path.join(ROOT, "exercise*/honest_*.py"))):
    n = int(path.split("exercise")[1].split("/")[0])
    m = load(path)
    rel = os.path.relpath(path, ROOT)
    for dt in (F64, F32, F16, BF16):
        tag = f"{rel} {dt}"
        if n == 1:
            run(tag, lambda: [close(a, b, dt) for a, b in zip(m.project(rnd(3, 64, 32).to(dt), *(rnd(32, 16, seed=i).to(dt) for i in (1, 2, 3))),
                                                                 ref.project(rnd(3, 64, 32).to(dt), *(rnd(32, 16, seed=i).to(dt) for i in (1, 2, 3))))])
        if n in (2, 3):
            q, k = rnd(2, 4, 100, 32).to(dt), rnd(2, 4, 120, 32, seed=1).to(dt)
            f = m.attention_scores if n == 2 else m.scaled_scores
            r = ref.attention_scores if n == 2 else ref.scaled_scores
            run(tag, lambda: close(f(q, k), r(q, k), dt))
        if n == 5:
            x = (rnd(4, 300, seed=2) * 4).to(dt)
            with banned_softmax():
                run(tag + " long rows", lambda: close(m.softmax(x, -1), ref.softmax(x.double()).to(dt), dt))
                h = (rnd(4, 50, seed=3) * 1e4).to(dt) if dt != F16 else (rnd(4, 50, seed=3) * 6e3).to(dt)
                run(tag + " huge", lambda: close(m.softmax(h, -1), ref.softmax(h.double()).to(dt), dt))
                q, k, v = (rnd(2, 3, 130, 16, seed=i).to(dt) for i in (4, 5, 6))
                mk = ref.causal_mask(130)
                run(tag + " sdpa", lambda: close(m.scaled_dot_product_attention(q, k, v, mk)[0],
                                                  ref.sdpa5(q.double(), k.double(), v.double(), mk)[0].to(dt), dt))
        if n == 10:
            x = (rnd(4, 300, seed=2) * 4).to(dt)
            with banned_softmax():
                run(tag + " online long", lambda: close(m.online_softmax(x, 7), ref.softmax(x.double()).to(dt), dt))
                q, k, v = (rnd(2, 3, L, 16, seed=i).to(dt) for i, L in ((4, 100), (5, 257), (6, 257)))
                run(tag + " tiled", lambda: close(m.tiled_attention(q, k, v, 32, causal=True),
                                                   ref.full_attention(q.double(), k.double(), v.double(), True).to(dt), dt))
                q2 = (q * 8)
                run(tag + " tiled sharp", lambda: close(m.tiled_attention(q2, k, v, 32),
                                                         ref.full_attention(q2.double(), k.double(), v.double()).to(dt), dt))
print("stress failures:", bad)
